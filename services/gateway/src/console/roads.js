// @ts-check
/**
 * Drawing the roads as players see them, from GET /v1/tables/:id/roads: each road comes as a
 * 6-row grid of letters, and the bead plate and big road also as cells with their ties and pair
 * marks.
 */

export const ROWS = 6;

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
