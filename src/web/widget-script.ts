// The payment widget served at /widget/v1/widget.js. It defines window.PaymentWidget:
//   var w = new PaymentWidget({publishableKey, amount, currency, initial_method, language?, description?,
//                              order_id?, onSuccess?(o), onFailure?(o), onComplete?(o)});
//   w.mount(selector) -> Promise<{session_id, checkout_url, expires_at}>
// mount creates a session with POST /widget/v1/session (cross-origin: CORS for the merchant's
// allowed_domains) and shows its checkout_url in an iframe with ?origin=<this page's origin>. Card
// data is typed only inside that iframe (the service's origin). The framed page reports the outcome
// by postMessage to this exact origin; the widget accepts a message only from the service's origin,
// only from its own iframe, and only with the expected shape and session id, at most once.
// The frame follows its content's height like the embedded form's (FRAME_SIZING in embed-script.ts);
// `height` is only its height until the first report. When the session cannot be created (an origin
// off allowed_domains, a wrong key, the network), mount rejects with the service's reason and
// onFailure({session_id: null, status: null, error: {code, message}}) is called: the service grants
// every preflight, so the refusal itself is readable here (src/http/cors.ts).
// Callbacks are for the interface only: goods ship on the webhook or a status read.
import { FRAME_SIZING, INITIAL_FRAME_HEIGHT, OUTCOME_MESSAGE_TYPE } from './embed-script.js';

export function widgetScript(serviceOrigin: string): string {
  return `/* PaymentWidget 2.0.0. Card entry always happens in the iframe. */
(function(){
'use strict';
var SERVICE=${JSON.stringify(serviceOrigin)};
var TYPE=${JSON.stringify(OUTCOME_MESSAGE_TYPE)};
var PAID={succeeded:1},FINAL={succeeded:1,failed:1,expired:1,cancelled:1};
${FRAME_SIZING}
function PaymentWidget(o){
  if(!(this instanceof PaymentWidget))return new PaymentWidget(o);
  o=o||{};
  if(typeof o.publishableKey!=='string'||!/^pk_(test|live)_/.test(o.publishableKey))throw new Error('PaymentWidget: publishableKey must be a pk_test_ or pk_live_ key');
  this.o=o;this.iframe=null;this.session=null;this._off=null;
}
PaymentWidget.prototype.mount=function(selector){
  var self=this,o=this.o;
  var el=typeof selector==='string'?document.querySelector(selector):selector;
  if(!el)return Promise.reject(new Error('PaymentWidget: no element matches '+selector));
  var body={amount:o.amount,currency:o.currency};
  ['initial_method','language','description','order_id','customer','metadata'].forEach(function(k){if(o[k]!==undefined&&o[k]!==null)body[k]=o[k]});
  function failed(code,message,response){
    var e=new Error('PaymentWidget: '+code+': '+message);e.code=code;e.response=response;
    if(window.console)console.error(e.message);
    if(typeof o.onFailure==='function')o.onFailure({session_id:null,status:null,error:{code:code,message:message}});
    throw e;
  }
  return fetch(SERVICE+'/widget/v1/session',{method:'POST',mode:'cors',credentials:'omit',
    headers:{'authorization':'Bearer '+o.publishableKey,'content-type':'application/json'},body:JSON.stringify(body)})
  .then(function(r){return r.json().then(function(j){if(!r.ok){if(j&&j.error)failed(j.error.code,j.error.message,j);failed('HTTP_'+r.status,'the service answered '+r.status,j)}return j},
    function(){return failed('HTTP_'+r.status,'the service answered '+r.status+' without a JSON body',null)})},
    function(e){return failed('NETWORK_ERROR','could not reach '+SERVICE+' ('+e.message+')',null)})
  .then(function(s){
    var u=new URL(s.checkout_url);
    if(u.origin!==SERVICE||!/^\\/pay\\/cs_[0-9A-Za-z]+$/.test(u.pathname))throw new Error('PaymentWidget: unexpected checkout_url');
    u.searchParams.set('origin',location.origin);
    var f=document.createElement('iframe');
    f.src=u.toString();f.title=o.title||'Payment';f.setAttribute('allow','payment');
    f.style.cssText='display:block;border:0;width:100%;height:'+(o.height||${INITIAL_FRAME_HEIGHT})+'px';
    var done=false;
    function onMessage(e){
      if(e.origin!==SERVICE||e.source!==f.contentWindow)return;
      if(sized(f,s.session_id,e))return;
      var d=e.data;
      if(!d||typeof d!=='object'||d.type!==TYPE||d.payment_id!==s.session_id||typeof d.status!=='string'||!FINAL[d.status])return;
      if(done)return;done=true;
      var out={session_id:s.session_id,status:d.status};
      var cb=PAID[d.status]?o.onSuccess:o.onFailure;
      if(typeof cb==='function')cb(out);
      if(typeof o.onComplete==='function')o.onComplete(out);
    }
    window.addEventListener('message',onMessage);
    self._off=function(){window.removeEventListener('message',onMessage)};
    while(el.firstChild)el.removeChild(el.firstChild);
    el.appendChild(f);
    self.iframe=f;self.session=s;
    return s;
  });
};
PaymentWidget.prototype.unmount=function(){if(this._off)this._off();if(this.iframe&&this.iframe.parentNode)this.iframe.parentNode.removeChild(this.iframe);this.iframe=null};
PaymentWidget.version='2.0.0';
window.PaymentWidget=PaymentWidget;
})();
`;
}
