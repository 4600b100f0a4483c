// The embedded-form script served at /js/v1/checkout.js. It defines window.PaymentCheckout with
//   mount(selector, {url: checkout_url, onSuccess(p), onFailure(p), height?}) -> {iframe, unmount()}
//   redirect(checkout_url)
// The frame follows its content's height: the framed page posts {type: 'checkout.resize',
// payment_id, height} (src/web/frame-height.ts), accepted like the outcome below and kept within
// FRAME_MIN_HEIGHT..FRAME_MAX_HEIGHT; `height` is only the frame's height until the first report.
// At mount the script also asks the service whether this page's origin may frame the payment
// (GET /checkout/{id}/embed-check, readable cross-origin): when it may not, the browser would show
// an empty frame (CSP frame-ancestors) and say nothing to the page, so the script hides the frame,
// logs the reason and calls onFailure({payment_id, status: null, error: {code, message}}).
// mount shows the hosted page in an iframe with ?origin=<this page's origin>; the server checks that
// origin against the merchant's allowlist, and the framed page reports its outcome to that exact
// origin. The script accepts a message only from the service's origin (the origin of checkout_url,
// baked in when the script is built), only from its own iframe, and only with the expected shape
// {type: 'checkout.outcome', payment_id, status}; one callback at most per mount: onSuccess for a paid
// status, onFailure for failed or expired, none for another status (review).
// Callbacks are for the interface only: goods ship on the webhook or a status read.

import { FRAME_MAX_HEIGHT, FRAME_MIN_HEIGHT, RESIZE_MESSAGE_TYPE } from './frame-height.js';

export const OUTCOME_MESSAGE_TYPE = 'checkout.outcome';
/** The frame's height (px) until the framed page reports its own. */
export const INITIAL_FRAME_HEIGHT = 640;

/**
 * The parent's half of the height protocol, shared with the widget: `sized(f, id, e)` applies a
 * message `e` when it is a height report of payment `id` from frame `f`; true when it was one.
 */
export const FRAME_SIZING = `var RESIZE=${JSON.stringify(RESIZE_MESSAGE_TYPE)};
function sized(f,id,e){var d=e.data;if(!d||typeof d!=='object'||d.type!==RESIZE||d.payment_id!==id)return false;
var h=d.height;if(typeof h!=='number'||!isFinite(h))return true;
f.style.height=Math.min(${FRAME_MAX_HEIGHT},Math.max(${FRAME_MIN_HEIGHT},Math.ceil(h)))+'px';return true}`;

/** The script text for a service whose checkout pages live at `serviceOrigin` (an origin, no path). */
export function checkoutScript(serviceOrigin: string): string {
  return `/* PaymentCheckout v1: embedded form. Docs: docs/embedding.md. */
(function(){
'use strict';
var SERVICE=${JSON.stringify(serviceOrigin)};
var TYPE=${JSON.stringify(OUTCOME_MESSAGE_TYPE)};
var PAID={succeeded:1,partially_refunded:1,refunded:1},FAILED={failed:1,expired:1};
${FRAME_SIZING}
function checkoutUrl(u){
  var x;
  try{x=new URL(String(u),location.href)}catch(e){throw new Error('PaymentCheckout: not a URL: '+u)}
  if(x.origin!==SERVICE||!/^\\/pay\\/[A-Za-z0-9_-]+$/.test(x.pathname))throw new Error('PaymentCheckout: the url must be a checkout_url of '+SERVICE+' (/pay/...)');
  return x;
}
function mount(selector,opts){
  opts=opts||{};
  var el=typeof selector==='string'?document.querySelector(selector):selector;
  if(!el)throw new Error('PaymentCheckout: no element matches '+selector);
  var u=checkoutUrl(opts.url);
  var id=u.pathname.slice(5);
  u.searchParams.set('origin',location.origin);
  var f=document.createElement('iframe');
  f.src=u.toString();
  f.title=opts.title||'Payment';
  f.setAttribute('allow','payment');
  f.style.cssText='display:block;border:0;width:100%;height:'+(opts.height||${INITIAL_FRAME_HEIGHT})+'px';
  var done=false;
  function refused(err){
    if(done)return;done=true;
    f.style.display='none';
    if(window.console)console.error('PaymentCheckout: '+err.message);
    if(typeof opts.onFailure==='function')opts.onFailure({payment_id:id,status:null,error:{code:err.code,message:err.message}});
  }
  fetch(SERVICE+'/checkout/'+encodeURIComponent(id)+'/embed-check?origin='+encodeURIComponent(location.origin),{mode:'cors',credentials:'omit'})
  .then(function(r){if(r.status!==403&&r.status!==404)return;return r.json().then(function(j){if(j&&j.error)refused(j.error)})})
  .catch(function(e){if(window.console)console.warn('PaymentCheckout: could not check whether this page may frame the payment: '+e)});
  function onMessage(e){
    if(e.origin!==SERVICE||e.source!==f.contentWindow)return;
    if(sized(f,id,e))return;
    var d=e.data;
    if(!d||typeof d!=='object'||d.type!==TYPE||d.payment_id!==id||typeof d.status!=='string')return;
    if(done||!(PAID[d.status]||FAILED[d.status]))return;
    done=true;
    var p={payment_id:d.payment_id,status:d.status};
    var cb=PAID[d.status]?opts.onSuccess:opts.onFailure;
    if(typeof cb==='function')cb(p);
  }
  window.addEventListener('message',onMessage);
  while(el.firstChild)el.removeChild(el.firstChild);
  el.appendChild(f);
  return{iframe:f,unmount:function(){done=true;window.removeEventListener('message',onMessage);if(f.parentNode)f.parentNode.removeChild(f)}};
}
function redirect(u){location.assign(checkoutUrl(u).toString())}
window.PaymentCheckout={version:'1',mount:mount,redirect:redirect};
})();
`;
}
