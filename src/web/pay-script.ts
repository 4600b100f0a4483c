// The hosted page's only script (served inline with the answer's nonce). It drives the method tabs,
// sends the card or method to the public checkout endpoints, follows next_action (3-D Secure, QR,
// redirect, poll) and reloads once the outcome is known, so the server renders the final screen.
// Framed by an allowlisted merchant page (D.parentOrigin, checked by the server), the final screen
// reports {type, payment_id, status} to that exact origin only (src/web/embed-script.ts listens).
export const PAY_SCRIPT = `(function(){
var D=JSON.parse(document.getElementById('pe-data').textContent);
function $(s){return document.querySelector(s)}
function $$(s){return Array.prototype.slice.call(document.querySelectorAll(s))}
var FINAL={succeeded:1,failed:1,expired:1,cancelled:1};
function api(path,body){return fetch('/checkout/'+encodeURIComponent(D.id)+path,{method:body?'POST':'GET',headers:{'content-type':'application/json','accept-language':D.lang},body:body?JSON.stringify(body):undefined}).then(function(r){return r.json().then(function(j){return{status:r.status,body:j}})})}
function status(text){var s=$('#status');if(!s)return;if(text){s.hidden=false;$('#status-text').textContent=text}else s.hidden=true}
function error(msg){var e=$('#error');if(!e)return;e.textContent=msg||'';e.hidden=!msg;if(msg)e.focus()}
function lock(on){$$('button.primary,button.secondary').forEach(function(b){b.disabled=on})}
var polling=false;
function poll(){if(polling)return;polling=true;status(D.t.waiting);(function tick(){setTimeout(function(){api('/status').then(function(r){if(r.body&&FINAL[r.body.status])location.reload();else tick()},tick)},1500)})()}
function showQr(a){var p=$('#sbp-qr');if(!p)return;p.hidden=false;var img=$('#qr-img');if(a.qr_image_url)img.src=a.qr_image_url;else img.hidden=true;
$$('#banks a').forEach(function(l){l.href=a.deeplink+(a.deeplink.indexOf('?')<0?'?':'&')+'member='+l.getAttribute('data-member')});var b=$('#sbp-start');if(b)b.hidden=true}
function act(a){if(!a){poll();return}
if(a.type==='three_ds_challenge'){location.href=a.acs_url+'?creq='+encodeURIComponent(a.creq)+(D.parentOrigin?'&origin='+encodeURIComponent(D.parentOrigin):'');return}
if(a.type==='redirect'){location.href=a.redirect_url;return}
if(a.type==='show_qr'){showQr(a);poll();return}poll()}
function handle(r){lock(false);status('');if(r.status!==200){error(r.body&&r.body.error?r.body.error.message:D.t.error);return}
if(FINAL[r.body.status]){location.reload();return}act(r.body.next_action)}
function send(path,body){error('');lock(true);status(D.t.processing);api(path,body).then(handle,function(){lock(false);status('');error(D.t.error)})}
var tabs=$$('[role=tab]');
function select(tab){tabs.forEach(function(t){var on=t===tab;t.setAttribute('aria-selected',on?'true':'false');t.tabIndex=on?0:-1;$('#'+t.getAttribute('aria-controls')).hidden=!on});error('')}
tabs.forEach(function(t,i){t.addEventListener('click',function(){select(t)});t.addEventListener('keydown',function(e){var k=e.key==='ArrowRight'?1:e.key==='ArrowLeft'?-1:0;if(!k)return;var n=tabs[(i+k+tabs.length)%tabs.length];select(n);n.focus();e.preventDefault()})});
var cf=$('#card-form');if(cf)cf.addEventListener('submit',function(e){e.preventDefault();var ex=cf.exp.value.replace(/\\s/g,'').split('/');
var b={number:cf.number.value,exp_month:ex[0]||'',exp_year:ex[1]||'',cvc:cf.cvc.value};if(cf.holder.value)b.holder=cf.holder.value;send('/pay',b)});
$$('form[data-method]').forEach(function(f){f.addEventListener('submit',function(e){e.preventDefault();var m=f.getAttribute('data-method');var b={method_code:m};
if(f.phone&&f.phone.value)b.phone=f.phone.value;if(m==='recurrent'){var c=f.querySelector('input[name=saved]:checked');if(c)b.saved_payment_method_id=c.value}
if(m==='apple_pay'||m==='google_pay'){var d=$('#wallet-dialog');d.setAttribute('data-method',m);$('#wallet-name').textContent=f.getAttribute('data-name');d.showModal();return}
send('/submit-method',b)})});
var wd=$('#wallet-dialog');if(wd){wd.addEventListener('close',function(){var v=wd.returnValue;if(v==='approve'||v==='decline')send('/submit-method',{method_code:wd.getAttribute('data-method'),payment_token:'sandbox_'+v})})}
var cx=$('#cancel-session');if(cx)cx.addEventListener('click',function(){send('/cancel',{})});
if(D.awaiting==='sbp'&&D.nextAction)showQr(D.nextAction);
if(D.awaiting==='sbp'||D.awaiting==='wallet'||D.awaiting==='poll')poll();
if(D.parentOrigin&&window.parent!==window&&D.status!=='pending'){window.parent.postMessage({type:'checkout.outcome',payment_id:D.id,status:D.status},D.parentOrigin)}
if(D.returnTo){setTimeout(function(){location.href=D.returnTo},D.autoReturnMs)}
})();`;
