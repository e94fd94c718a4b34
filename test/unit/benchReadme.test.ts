/**
 * The figures in bench/README.md are those of bench/results/latest.json, as bench/readme.ts generates
 * them (`npm run bench` rewrites the block after every run), so the published figures cannot drift from
 * the committed results.
 */
import { readFileSync } from 'node:fs';

import { END, LATEST, README, START, withFigures } from '../../bench/readme';

test('bench/README.md shows the figures of bench/results/latest.json', () => {
	const readme = readFileSync(README, 'utf8');
	const latest = JSON.parse(readFileSync(LATEST, 'utf8'));
	expect(readme).toContain(START);
	expect(readme).toContain(END);
	// If this fails after a bench run: node -r ts-node/register/transpile-only bench/readme.ts
	expect(readme).toBe(withFigures(readme, latest));
	expect(readme).toContain(`Run of ${latest.startedAt} (commit ${latest.commit}`);
});

test('the figures block is replaced, not appended to', () => {
	const stub = `# x\n\n${START}\nold figures\n${END}\n\nafter\n`;
	const record = JSON.parse(readFileSync(LATEST, 'utf8'));
	const once = withFigures(stub, record);
	expect(once).not.toContain('old figures');
	expect(withFigures(once, record)).toBe(once);
	expect(once.endsWith(`${END}\n\nafter\n`)).toBe(true);
	expect(() => withFigures('# no block\n', record)).toThrow(/figures block/);
});
