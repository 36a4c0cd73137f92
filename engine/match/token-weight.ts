/**
 * Identity weight of a token: inverse document frequency over the index's entities (Sparck Jones,
 * K. (1972), "A statistical interpretation of term specificity and its application in retrieval",
 * J. Documentation 28(1)), smoothed so an unseen token weighs the most. Rare tokens (a surname seen
 * once) carry a name; common ones (Mohammed, Ali, Company) carry little. Generic organisation words
 * are discounted further: "Trading Company" is not an identity; so are titles wherever they stand
 * (the normaliser drops them only before a name): "Compton Lady Emily" is Lady Emily Compton.
 */
export const TOKEN_WEIGHTS = Object.freeze({
  /** Weight multiplier for generic organisation words (company, limited, group, ...) and titles */
  symbol: 0.3,
  /** Weight multiplier for a single-letter token (an initial says little) */
  initial: 0.5,
});

export function idf(df: number, entityCount: number): number {
  return Math.log(1 + entityCount / (df + 0.5));
}

export function tokenWeight(df: number, entityCount: number, isSymbol: boolean, length: number): number {
  let w = idf(df, entityCount);
  if (isSymbol) w *= TOKEN_WEIGHTS.symbol;
  if (length === 1) w *= TOKEN_WEIGHTS.initial;
  return w;
}
