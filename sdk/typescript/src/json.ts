// Exact decimals: HaulGraph writes amounts as JSON numbers with their
// exact digits, and JSON.parse would turn 123456789.01 into a double.
// quoteNumbers rewrites the JSON text so that the numbers the schema types
// as decimals (a Shape, generated from the schemas) become strings holding
// those digits, before anything parses it. No property name means
// anything by itself: only its place in the shape does.

/**
 * Where a body's exact decimals are: 'decimal' for a number to keep as
 * text; an object of property shapes ('*' stands for any property of a
 * map) whose lists have their items' shape.
 */
export type Shape = 'decimal' | { readonly [key: string]: Shape };

export type ShapeSource = string | { [key: string]: ShapeSource };

/** Replaces schema names by their shapes (recursive schemas become cycles). */
export function link<K extends string>(named: Record<string, ShapeSource>, roots: Record<K, ShapeSource>): Record<K, Shape> {
  const seen = new Set<object>();
  const resolve = (s: ShapeSource): ShapeSource => {
    if (s === 'decimal') return s;
    if (typeof s === 'string') {
      const target = named[s];
      if (target === undefined) throw new Error(`shape ${s} is not defined`);
      return typeof target === 'string' ? resolve(target) : (fill(target), target);
    }
    fill(s);
    return s;
  };
  const fill = (o: { [key: string]: ShapeSource }) => {
    if (seen.has(o)) return;
    seen.add(o);
    for (const k of Object.keys(o)) o[k] = resolve(o[k]!);
  };
  const out = {} as Record<K, Shape>;
  for (const k of Object.keys(roots) as K[]) out[k] = resolve(roots[k]) as Shape;
  return out;
}

const child = (shape: Shape | undefined, key: string): Shape | undefined => {
  if (shape === undefined || shape === 'decimal') return undefined;
  if (Object.hasOwn(shape, key)) return shape[key];
  return Object.hasOwn(shape, '*') ? shape['*'] : undefined;
};

export function quoteNumbers(text: string, shape: Shape | undefined): string {
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
  const value = (here: Shape | undefined): void => {
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
        value(child(here, key));
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
        value(here);
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
    if (here === 'decimal' && /^-?[0-9]/.test(text.slice(start, i))) {
      pieces.push(text.slice(last, start), '"', text.slice(start, i), '"');
      last = i;
    }
  };
  value(shape);
  ws();
  if (i !== text.length) fail();
  pieces.push(text.slice(last));
  return pieces.join('');
}
