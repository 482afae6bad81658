/**
 * The deepest nesting of arrays and objects in JSON text, counted outside strings, in one pass.
 * JSON is checked with it before it is parsed: no documented model nests deeply, and a parser
 * handed 100,000 nested arrays builds them all (memory) or overflows its stack.
 */
export function nestingDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const char = text[index];
    if (inString) {
      if (char === '\\') index++;
      else if (char === '"') inString = false;
    } else if (char === '"') inString = true;
    else if (char === '[' || char === '{') deepest = Math.max(deepest, ++depth);
    else if (char === ']' || char === '}') depth--;
  }
  return deepest;
}
