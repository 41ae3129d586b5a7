/** Types of the console's plain-JavaScript money module, for the tests that import it. */
export function formatMoney(
  amount: number,
  currency: string | null,
  exponents: Readonly<Record<string, number>>,
): string;
