// @ts-check
/**
 * Drawing the roads as players see them, from GET /v1/tables/:id/roads. The API gives each
 * road as a 6-row grid of letters; the big road's ties are given by logical position (streak,
 * entry), so the big road is laid out here with the same dragon-tail rule as
 * `layOutStreaks` in @croupier/baccarat to find the cell each tie marks.
 */

export const ROWS = 6;

/**
 * Lays streaks on the grid: each starts at row 0 in the column after the previous streak's
 * start, goes down while the cell below is free, else turns right on its row.
 * @template T
 * @param {T[][]} streaks
 * @returns {{ column: number, row: number, value: T, streak: number, entry: number }[]}
 */
export function layOut(streaks, rows = ROWS) {
  const cells = [];
  const taken = new Set();
  const isTaken = (/** @type {number} */ column, /** @type {number} */ row) =>
    taken.has(`${column},${row}`);
  let previousStart = -1;
  streaks.forEach((streak, streakIndex) => {
    let column = previousStart + 1;
    while (isTaken(column, 0)) column++;
    previousStart = column;
    let row = 0;
    let turned = false;
    streak.forEach((value, entry) => {
      if (entry > 0) {
        if (!turned && row + 1 < rows && !isTaken(column, row + 1)) {
          row++;
        } else {
          turned = true;
          column++;
          while (isTaken(column, row)) column++;
        }
      }
      taken.add(`${column},${row}`);
      cells.push({ column, row, value, streak: streakIndex, entry });
    });
  });
  return cells;
}

/**
 * The filled cells of a grid given as rows of letters ('.' for empty).
 * @param {string[]} grid
 */
export function cellsOf(grid) {
  const cells = [];
  grid.forEach((line, row) => {
    [...line].forEach((value, column) => {
      if (value !== '.') cells.push({ column, row, value });
    });
  });
  return cells;
}
