/**
 * A decoy: DejaVu Serif's outlines under the family name "DejaVu Sans Mono"
 * (its name table rewritten), for the tests that show no installed font can
 * change a screenshot's pixels.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './cli.js';

export function decoyFont(family = 'DejaVu Sans Mono'): Buffer {
  const src = readFileSync(join(ROOT, 'node_modules/dejavu-fonts-ttf/ttf/DejaVuSerif.ttf'));
  const count = src.readUInt16BE(4);
  const names: Array<[number, string]> = [[1, family], [2, 'Book'], [4, family], [6, family.replace(/ /g, '')], [16, family], [17, 'Book']];
  const strings = names.map(([, s]) => Buffer.from(s, 'utf16le').swap16());
  const header = Buffer.alloc(6 + names.length * 12);
  header.writeUInt16BE(0, 0);
  header.writeUInt16BE(names.length, 2);
  header.writeUInt16BE(header.length, 4);
  let offset = 0;
  names.forEach(([id], i) => {
    const at = 6 + i * 12;
    header.writeUInt16BE(3, at); // Windows
    header.writeUInt16BE(1, at + 2); // Unicode BMP
    header.writeUInt16BE(0x409, at + 4); // en-US
    header.writeUInt16BE(id, at + 6);
    header.writeUInt16BE(strings[i].length, at + 8);
    header.writeUInt16BE(offset, at + 10);
    offset += strings[i].length;
  });
  const table = Buffer.concat([header, ...strings]);
  const padded = Buffer.concat([src, Buffer.alloc((4 - (src.length % 4)) % 4)]);
  const out = Buffer.concat([padded, table]);
  for (let i = 0; i < count; i++) {
    const at = 12 + i * 16;
    const tag = out.toString('latin1', at, at + 4);
    if (tag === 'name') {
      out.writeUInt32BE(padded.length, at + 8);
      out.writeUInt32BE(table.length, at + 12);
    }
    // Weight 500: a face of the family that the real one does not have, so a library that finds it lists it.
    if (tag === 'OS/2') out.writeUInt16BE(500, out.readUInt32BE(at + 8) + 4);
  }
  return out;
}

/** A fontconfig file that serves fonts from `dir` and answers "DejaVu Sans Mono" with another family. */
export function aliasingFontconfig(dir: string, to = 'DejaVu Serif'): string {
  return `<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "fonts.dtd">
<fontconfig>
  <dir>${dir}</dir>
  <dir>/usr/share/fonts</dir>
  <match target="pattern">
    <test qual="any" name="family"><string>DejaVu Sans Mono</string></test>
    <edit name="family" mode="assign" binding="strong"><string>${to}</string></edit>
  </match>
  <alias binding="strong"><family>DejaVu Sans Mono</family><prefer><family>${to}</family></prefer></alias>
  <alias binding="strong"><family>monospace</family><prefer><family>${to}</family></prefer></alias>
</fontconfig>
`;
}
