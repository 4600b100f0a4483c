// The stylesheet of the hosted pages: system fonts, no images, readable from 320 px up, visible
// focus, AA contrast.
import { TAB_ROWS_CSS } from './tab-rows.js';

export const CSS = `${TAB_ROWS_CSS}
*{box-sizing:border-box}html{-webkit-text-size-adjust:100%}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#111827;background:#f3f4f6}
main{max-width:28rem;margin:0 auto;padding:1rem}
.box{background:#fff;border-radius:12px;padding:1.25rem;box-shadow:0 1px 3px rgba(0,0,0,.12)}
h1{font-size:1.125rem;margin:0 0 .25rem;word-wrap:break-word}
.amount{font-size:1.75rem;font-weight:700;margin:0 0 1rem}
.muted{color:#4b5563;font-size:.875rem}
.top{display:flex;justify-content:space-between;align-items:center;gap:.5rem;margin-bottom:.75rem}.top>*{min-width:0}
.langs{white-space:nowrap;flex:none}.langs a{color:#1d4ed8;margin-left:.5rem}.langs a[aria-current]{font-weight:700;color:#111827;text-decoration:none}
.badge{display:inline-block;background:#fef3c7;color:#78350f;border-radius:6px;padding:.125rem .5rem;font-size:.75rem}
[role=tab]{min-width:0;padding:.5rem .25rem;border:1px solid #d1d5db;border-radius:8px;background:#fff;color:#111827;font:inherit;font-size:.875rem;cursor:pointer}
[role=tab][aria-selected=true]{border-color:#1d4ed8;background:#eff6ff;font-weight:600}
label{display:block;font-size:.875rem;margin:.5rem 0 .25rem}
input{width:100%;padding:.625rem;border:1px solid #9ca3af;border-radius:8px;font:inherit;color:#111827;background:#fff}
.row{display:flex;gap:.75rem}.row>div{flex:1;min-width:0}
button.primary,a.primary{display:block;width:100%;margin-top:1rem;padding:.75rem;border:0;border-radius:8px;background:#1d4ed8;color:#fff;font:inherit;font-weight:600;text-align:center;text-decoration:none;cursor:pointer}
button.secondary{display:block;width:100%;margin-top:.5rem;padding:.625rem;border:1px solid #9ca3af;border-radius:8px;background:#fff;color:#111827;font:inherit;cursor:pointer}
button:disabled{opacity:.6;cursor:progress}
:focus-visible{outline:3px solid #f59e0b;outline-offset:2px}
.error{color:#b91c1c;margin:.75rem 0 0}.field-error{margin:.25rem 0 0;font-size:.875rem}input[aria-invalid=true]{border-color:#b91c1c}
.status{display:flex;align-items:center;gap:.5rem;margin-top:1rem}
.spinner{width:1.25rem;height:1.25rem;border:3px solid #bfdbfe;border-top-color:#1d4ed8;border-radius:50%;animation:spin 1s linear infinite}
@keyframes spin{to{transform:rotate(360deg)}}
@media (prefers-reduced-motion:reduce){.spinner{animation:none}}
.qr{display:block;width:12rem;height:12rem;margin:.5rem auto;image-rendering:pixelated}
.banks{list-style:none;padding:0;margin:.5rem 0 0;display:grid;grid-template-columns:repeat(2,minmax(0,1fr));gap:.375rem}
.banks a{display:block;padding:.5rem .25rem;overflow-wrap:break-word;border:1px solid #d1d5db;border-radius:8px;color:#111827;text-decoration:none;text-align:center;font-size:.875rem}
.outcome{text-align:center}.icon{font-size:3rem;line-height:1;margin:.5rem 0}
.ok .icon{color:#047857}.bad .icon{color:#b91c1c}
.saved label{display:flex;gap:.5rem;align-items:center;border:1px solid #d1d5db;border-radius:8px;padding:.5rem}.saved input{width:auto}
dialog{border:0;border-radius:12px;padding:1.25rem;max-width:22rem;width:calc(100% - 2rem)}dialog::backdrop{background:rgba(0,0,0,.45)}
[hidden]{display:none!important}
.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}`;
