// The height protocol of a framed page (embedded form, widget): every page a payment shows inside
// the merchant's frame (the hosted page and the sandbox ACS) posts its document's height to the
// parent, to the allowlisted parent origin only, first at once and then whenever it changes
// (ResizeObserver). The parent scripts (embed-script.ts, widget-script.ts) accept the message only
// from the service's origin and their own iframe, and set the frame's height within sane bounds.
// Served inline with the answer's nonce; reads {id, origin} from #pe-frame.
import { jsonForHtml } from './html.js';

export const RESIZE_MESSAGE_TYPE = 'checkout.resize';
/** The bounds a parent script keeps a reported height within (px). */
export const FRAME_MIN_HEIGHT = 200;
export const FRAME_MAX_HEIGHT = 5000;

const SCRIPT = `(function(){
var F=JSON.parse(document.getElementById('pe-frame').textContent);
if(window.parent===window)return;
var last=-1;
function report(){var h=Math.ceil(document.documentElement.getBoundingClientRect().height);if(h===last)return;last=h;
window.parent.postMessage({type:${JSON.stringify(RESIZE_MESSAGE_TYPE)},payment_id:F.id,height:h},F.origin)}
report();
if(window.ResizeObserver)new ResizeObserver(report).observe(document.documentElement);
window.addEventListener('load',report);
})();`;

/** The elements to add at the end of a framed page's body ('' when the page is not framed). */
export function frameHeightTags(paymentId: string, parentOrigin: string | null, nonce: string): string {
  if (!parentOrigin) return '';
  return `<script type="application/json" id="pe-frame">${jsonForHtml({ id: paymentId, origin: parentOrigin })}</script><script nonce="${nonce}">${SCRIPT}</script>`;
}
