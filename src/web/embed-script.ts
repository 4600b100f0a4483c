// The embedded-form script served at /js/v1/checkout.js. It defines window.PaymentCheckout with
//   mount(selector, {url: checkout_url, onSuccess(p), onFailure(p)}) -> {iframe, unmount()}
//   redirect(checkout_url)
// mount shows the hosted page in an iframe with ?origin=<this page's origin>; the server checks that
// origin against the merchant's allowlist, and the framed page reports its outcome to that exact
// origin. The script accepts a message only from the service's origin (the origin of checkout_url,
// baked in when the script is built), only from its own iframe, and only with the expected shape
// {type: 'checkout.outcome', payment_id, status}; one callback at most per mount: onSuccess for a paid
// status, onFailure for failed or expired, none for another status (review).
// Callbacks are for the interface only: goods ship on the webhook or a status read.

export const OUTCOME_MESSAGE_TYPE = 'checkout.outcome';

/** The script text for a service whose checkout pages live at `serviceOrigin` (an origin, no path). */
export function checkoutScript(serviceOrigin: string): string {
  return `/* PaymentCheckout v1: embedded form. Docs: README "Embedding the checkout". */
(function(){
'use strict';
var SERVICE=${JSON.stringify(serviceOrigin)};
var TYPE=${JSON.stringify(OUTCOME_MESSAGE_TYPE)};
var PAID={succeeded:1,partially_refunded:1,refunded:1},FAILED={failed:1,expired:1};
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
  f.style.cssText='border:0;width:100%;min-height:'+(opts.height||640)+'px';
  var done=false;
  function onMessage(e){
    if(e.origin!==SERVICE||e.source!==f.contentWindow)return;
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
  return{iframe:f,unmount:function(){window.removeEventListener('message',onMessage);if(f.parentNode)f.parentNode.removeChild(f)}};
}
function redirect(u){location.assign(checkoutUrl(u).toString())}
window.PaymentCheckout={version:'1',mount:mount,redirect:redirect};
})();
`;
}
