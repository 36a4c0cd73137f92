/** Calendar checks shared by every input path (a pattern alone accepts 2023-02-31). */
export function isRealDate(value: string): boolean {
  const m = /^(\d{4})(?:-(\d{2})-(\d{2}))?$/.exec(value);
  if (!m) return false;
  if (m[2] === undefined) return true;
  const y = Number(m[1]);
  const mo = Number(m[2]);
  const d = Number(m[3]);
  const date = new Date(0);
  date.setUTCFullYear(y, mo - 1, d); // Date.UTC maps years 0-99 to 1900-1999
  return date.getUTCFullYear() === y && date.getUTCMonth() === mo - 1 && date.getUTCDate() === d;
}
