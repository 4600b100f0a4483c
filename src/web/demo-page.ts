// The development demo merchant page (/demo): a tiny shop that pays through the embedded form
// (mount) or by sending the customer to the hosted page (redirect). Served only when the demo
// merchant is enabled (DEMO_MERCHANT); see docs/decisions.md "Embedded form".
import { escapeHtml, layout } from './html.js';

export function demoHeaders(nonce: string, serviceOrigin: string): [string, string][] {
  return [
    ['Content-Security-Policy', `default-src 'none'; script-src 'nonce-${nonce}' ${serviceOrigin}; style-src 'nonce-${nonce}'; img-src 'self'; frame-src ${serviceOrigin}; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`],
    ['X-Content-Type-Options', 'nosniff'],
    ['Cache-Control', 'no-store'],
  ];
}

const CSS = `body{font:16px/1.5 system-ui,sans-serif;margin:0;background:#f4f4f6;color:#1b1b1f}main{max-width:560px;margin:0 auto;padding:24px}
button{font:inherit;padding:10px 16px;margin:0 8px 8px 0;border-radius:8px;border:1px solid #444;background:#fff;cursor:pointer}
#checkout{margin-top:16px;background:#fff;border-radius:12px}#result{font-family:monospace;white-space:pre-wrap}`;

const SCRIPT = `(function(){
var out=document.getElementById('result');
function create(){out.textContent='';return fetch('/demo/payments',{method:'POST'}).then(function(r){return r.json()}).then(function(p){if(!p.checkout_url)throw new Error(p.error?p.error.message:'no checkout_url');return p})}
function show(name){return function(p){out.textContent=name+' '+JSON.stringify(p)}}
function failed(e){out.textContent='error: '+e.message}
document.getElementById('embed').addEventListener('click',function(){create().then(function(p){
  PaymentCheckout.mount('#checkout',{url:p.checkout_url,onSuccess:show('onSuccess'),onFailure:show('onFailure')})}).catch(failed)});
document.getElementById('redirect').addEventListener('click',function(){create().then(function(p){PaymentCheckout.redirect(p.checkout_url)}).catch(failed)});
})();`;

export function renderDemoPage(nonce: string, serviceOrigin: string, merchantName: string): string {
  const body = `<main><h1>${escapeHtml(merchantName)}: demo shop</h1>
<p>A test order of 49.00 AZN. Pay with the test card 4242 4242 4242 4242, any future expiry, any CVC.</p>
<button id="embed" type="button">Pay in a frame (mount)</button><button id="redirect" type="button">Pay on the hosted page (redirect)</button>
<p id="result" role="status" aria-live="polite"></p><div id="checkout"></div></main>
<script src="${serviceOrigin}/js/v1/checkout.js"></script><script nonce="${nonce}">${SCRIPT}</script>`;
  return layout('en', 'Demo shop', nonce, CSS, body);
}
