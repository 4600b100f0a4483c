// jsQR, an independent QR decoder, typed for NodeNext: its UMD bundle exports the function itself
// while its types describe an ES module with a default export.
import jsqrModule from 'jsqr';

type Decode = typeof jsqrModule.default;
const loaded = jsqrModule as unknown as Decode | { default: Decode };
export const decodeQr: Decode = typeof loaded === 'function' ? loaded : loaded.default;
