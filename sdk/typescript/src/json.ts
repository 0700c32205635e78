// Exact decimals: HaulGraph writes amounts as JSON numbers with their
// exact digits, and JSON.parse would turn 123456789.01 into a double.
// quoteNumbers rewrites the JSON text so that the numbers chosen by keep
// become strings holding those digits, before anything parses it.

/** Where a number sits: the keys of the objects around it (list indices left out). */
export type JSONPath = readonly string[];

export function quoteNumbers(text: string, keep: (path: JSONPath) => boolean): string {
  let i = 0;
  let last = 0;
  const pieces: string[] = [];
  const fail = (): never => {
    throw new SyntaxError(`invalid JSON at offset ${i}`);
  };
  const ws = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i]!)) i++;
  };
  const string = (): string => {
    const start = i;
    if (text[i] !== '"') fail();
    for (i++; i < text.length && text[i] !== '"'; i++) if (text[i] === '\\') i++;
    if (i >= text.length) fail();
    i++;
    return JSON.parse(text.slice(start, i)) as string;
  };
  const value = (path: string[]): void => {
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      ws();
      if (text[i] === '}') { i++; return; }
      for (;;) {
        ws();
        const key = string();
        ws();
        if (text[i++] !== ':') fail();
        path.push(key);
        value(path);
        path.pop();
        ws();
        if (text[i] === ',') { i++; continue; }
        if (text[i++] !== '}') fail();
        return;
      }
    }
    if (c === '[') {
      i++;
      ws();
      if (text[i] === ']') { i++; return; }
      for (;;) {
        value(path);
        ws();
        if (text[i] === ',') { i++; continue; }
        if (text[i++] !== ']') fail();
        return;
      }
    }
    if (c === '"') { string(); return; }
    const start = i;
    while (i < text.length && /[-+0-9.eEa-z]/.test(text[i]!)) i++;
    if (i === start) fail();
    if (/^-?[0-9]/.test(text.slice(start, i)) && keep(path)) {
      pieces.push(text.slice(last, start), '"', text.slice(start, i), '"');
      last = i;
    }
  };
  value([]);
  ws();
  if (i !== text.length) fail();
  pieces.push(text.slice(last));
  return pieces.join('');
}
