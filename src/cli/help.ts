/** Every command's help, in one style: usage lines, description, options by section, epilogue. */
export interface HelpSource {
  name: string;
  usage: string[];
  description?: string;
  sectionNotes?: Record<string, string>;
  epilogue?: string;
}
export interface HelpOption {
  short?: string;
  arg?: string;
  help: string;
  section?: string;
}

const WIDTH = 100;
const COLUMN = 23;

export function formatHelp(definition: HelpSource, specs: Record<string, HelpOption>): string {
  const { name } = definition;
  const usage = definition.usage.map((u, i) => `${i === 0 ? 'usage: ' : '       '}tapedeck ${name}${u ? ` ${u}` : ''}`);
  const parts = [usage.join('\n')];
  if (definition.description) parts.push(definition.description.trimEnd());
  const sections = new Map<string, string[]>();
  for (const [option, spec] of Object.entries(specs)) {
    const title = spec.section ?? 'options';
    if (!sections.has(title)) sections.set(title, []);
    sections.get(title)!.push(optionLine(option, spec));
  }
  for (const [title, lines] of sections) {
    const note = definition.sectionNotes?.[title];
    parts.push([`${title}:`, ...lines, ...(note ? [indent(note.trimEnd(), '  ')] : [])].join('\n'));
  }
  if (definition.epilogue) parts.push(definition.epilogue.trimEnd());
  return `${parts.join('\n\n')}\n`;
}

function optionLine(option: string, spec: HelpOption): string {
  const flag = `  ${spec.short ? `-${spec.short}, ` : ''}--${option}${spec.arg ? ` ${spec.arg}` : ''}`;
  const text = wrap(spec.help, WIDTH - COLUMN);
  const pad = ' '.repeat(COLUMN);
  if (flag.length < COLUMN - 1) return [flag.padEnd(COLUMN) + text[0], ...text.slice(1).map((l) => pad + l)].join('\n');
  return [flag, ...text.map((l) => pad + l)].join('\n');
}

function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  for (const paragraph of text.split('\n')) {
    let line = '';
    for (const word of paragraph.split(/\s+/).filter(Boolean)) {
      if (line && line.length + 1 + word.length > width) (lines.push(line), (line = word));
      else line = line ? `${line} ${word}` : word;
    }
    lines.push(line);
  }
  return lines;
}

const indent = (text: string, by: string) => text.split('\n').map((l) => (l ? by + l : l)).join('\n');
