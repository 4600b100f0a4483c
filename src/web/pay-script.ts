// The hosted page's only script (served inline with the answer's nonce). It drives the method tabs,
// sends the card or method to the public checkout endpoints, follows next_action (3-D Secure, QR,
// redirect, poll) and reloads once the outcome is known, so the server renders the final screen.
// Framed by an allowlisted merchant page (D.parentOrigin, checked by the server), the final screen
// reports {type, payment_id, status} to that exact origin only (src/web/embed-script.ts listens).
// The card form checks every field before sending (the server's rules: Luhn and 12-19 digits, a
// month 1-12 not past and at most 20 years ahead, 3 digits or 4 for American Express) and says what
// is wrong under each field at once; the number is grouped in fours (Amex 4-6-5) as it is typed.
// Next-action addresses of this service (D.service: the sandbox bank's pages) carry the page's language.
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
function withLang(u){try{if(new URL(u).origin!==D.service)return u}catch(e){return u}return u+(u.indexOf('?')<0?'?':'&')+'lang='+D.lang}
function showQr(a){var p=$('#sbp-qr');if(!p)return;p.hidden=false;var img=$('#qr-img');if(a.qr_image_url)img.src=a.qr_image_url;else img.hidden=true;
$$('#banks a').forEach(function(l){l.href=withLang(a.deeplink+(a.deeplink.indexOf('?')<0?'?':'&')+'member='+l.getAttribute('data-member'))});var b=$('#sbp-start');if(b)b.hidden=true}
function act(a){if(!a){poll();return}
if(a.type==='three_ds_challenge'){location.href=withLang(a.acs_url+'?creq='+encodeURIComponent(a.creq)+(D.parentOrigin?'&origin='+encodeURIComponent(D.parentOrigin):''));return}
if(a.type==='redirect'){location.href=withLang(a.redirect_url);return}
if(a.type==='show_qr'){showQr(a);poll();return}poll()}
function handle(r){lock(false);status('');if(r.status!==200){error(r.body&&r.body.error?r.body.error.message:D.t.error);return}
if(FINAL[r.body.status]){location.reload();return}act(r.body.next_action)}
function send(path,body){error('');lock(true);status(D.t.processing);api(path,body).then(handle,function(){lock(false);status('');error(D.t.error)})}
var tabs=$$('[role=tab]');
function select(tab){tabs.forEach(function(t){var on=t===tab;t.setAttribute('aria-selected',on?'true':'false');t.tabIndex=on?0:-1;$('#'+t.getAttribute('aria-controls')).hidden=!on});error('')}
tabs.forEach(function(t,i){t.addEventListener('click',function(){select(t)});t.addEventListener('keydown',function(e){var k=e.key==='ArrowRight'?1:e.key==='ArrowLeft'?-1:0;if(!k)return;var n=tabs[(i+k+tabs.length)%tabs.length];select(n);n.focus();e.preventDefault()})});
function digits(v){return v.replace(/\\D/g,'')}
function amex(n){return /^3[47]/.test(n)}
function group(n){return amex(n)?n.replace(/^(\\d{4})(\\d{1,6})?(\\d{1,5})?.*$/,function(m,a,b,c){return a+(b?' '+b:'')+(c?' '+c:'')}):n.replace(/(\\d{4})(?=\\d)/g,'$1 ')}
function luhn(n){var s=0;for(var i=0;i<n.length;i++){var d=+n[n.length-1-i];if(i%2){d*=2;if(d>9)d-=9}s+=d}return s%10===0}
function expiry(v){var m=/^(\\d{1,2})\\s*\\/?\\s*(\\d{2}|\\d{4})$/.exec(v.trim());if(!m)return null;var mo=+m[1],y=+m[2];if(y<100)y+=2000;return{month:mo,year:y}}
function fieldError(f,msg){var el=$('#'+f.id+'-error');el.textContent=msg||'';el.hidden=!msg;if(msg)f.setAttribute('aria-invalid','true');else f.removeAttribute('aria-invalid')}
function checkCard(cf){var n=digits(cf.number.value),x=expiry(cf.exp.value),c=cf.cvc.value.trim(),now=new Date(),y=now.getFullYear(),mo=now.getMonth()+1;
var bad={number:!(/^\\d{12,19}$/.test(n)&&luhn(n)),exp:!(x&&x.month>=1&&x.month<=12&&x.year<=y+20&&(x.year>y||(x.year===y&&x.month>=mo))),cvc:!(amex(n)?/^\\d{4}$/:/^\\d{3}$/).test(c)};
var first=null;['number','exp','cvc'].forEach(function(k){fieldError(cf[k],bad[k]?D.fieldErrors[k]:'');if(bad[k]&&!first)first=cf[k]});return first}
var cf=$('#card-form');if(cf){
cf.number.addEventListener('input',function(){var el=cf.number,v=el.value,at=el.selectionStart===null?v.length:el.selectionStart,before=digits(v.slice(0,at)).length;
var g=group(digits(v).slice(0,19));if(g===v)return;el.value=g;var p=0,k=0;while(p<g.length&&k<before){if(/\\d/.test(g[p]))k++;p++}el.setSelectionRange(p,p)});
['number','exp','cvc'].forEach(function(k){cf[k].addEventListener('input',function(){if(cf[k].getAttribute('aria-invalid'))fieldError(cf[k],'')})});
cf.addEventListener('submit',function(e){e.preventDefault();error('');var bad=checkCard(cf);if(bad){bad.focus();return}var x=expiry(cf.exp.value);
var b={number:digits(cf.number.value),exp_month:String(x.month),exp_year:String(x.year),cvc:cf.cvc.value.trim()};if(cf.holder.value)b.holder=cf.holder.value;send('/pay',b)})}
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
