// The QR code of a payload (an SBP payment link, a payment link's URL) as an SVG data URL the page
// shows as an image. Encoding is uqr's (a port of Nayuki's reference encoder: byte mode in UTF-8,
// the mask with the lowest penalty); this file only draws the modules. Pure.
import { encode } from 'uqr';

const QUIET_ZONE = 4; // modules of white around the code, as ISO/IEC 18004 asks

/** An SVG data URL of the QR code of `text` (level M, 4-module quiet zone), or null when too long. */
export function qrSvgDataUrl(text: string): string | null {
  let modules: boolean[][];
  try {
    modules = encode(text, { ecc: 'M', border: 0 }).data;
  } catch {
    return null; // over the capacity of version 40
  }
  const n = modules.length + 2 * QUIET_ZONE;
  // One path step per horizontal run of dark modules.
  let d = '';
  modules.forEach((row, y) => {
    for (let x = 0; x < row.length; x++) {
      if (!row[x]) continue;
      let run = 1;
      while (row[x + run]) run++;
      d += `M${x + QUIET_ZONE},${y + QUIET_ZONE}h${run}v1h-${run}z`;
      x += run;
    }
  });
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${n} ${n}" shape-rendering="crispEdges"><rect width="${n}" height="${n}" fill="#fff"/><path d="${d}" fill="#000"/></svg>`;
  return `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`;
}
