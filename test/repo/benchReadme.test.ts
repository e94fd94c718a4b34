/**
 * The figures in bench/README.md are those of bench/results/latest.json, as bench/readme.ts generates
 * them (`npm run bench` rewrites the block after every run), so the published figures cannot drift from
 * the committed results. Likewise the stress table of docs/design/queue-mode.md and bench/results/queue-stress.json.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

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

test('the queue-mode stress figures in docs/design/queue-mode.md are those of bench/results/queue-stress.json', () => {
	const doc = readFileSync(join(__dirname, '..', '..', 'docs', 'design', 'queue-mode.md'), 'utf8');
	const stress = JSON.parse(readFileSync(join(__dirname, '..', '..', 'bench', 'results', 'queue-stress.json'), 'utf8'));
	// The table's bench rows, each as its cells without emphasis.
	const rows = doc
		.split('\n')
		.filter((line) => line.startsWith('|') && line.includes('(bench)'))
		.map((line) =>
			line
				.replace(/\*/g, '')
				.split('|')
				.slice(1, -1)
				.map((cell) => cell.trim()),
		);
	expect(rows).toHaveLength(stress.results.length);
	for (const { routing, acknowledge, figures, load } of stress.results) {
		const routingWords = routing === 'hash' ? 'nginx hash' : 'round robin';
		const ackWords = acknowledge === 'whenFinished' ? 'Finished' : 'When Received';
		const row = rows.find(([deployment]) => deployment.startsWith(routingWords) && deployment.includes(ackWords));
		const a = (code: string) => figures.answers[code] ?? 0;
		expect(row?.slice(1, 6)).toEqual([
			`${figures.events} (${figures.repeated} / ${figures.failingFirst})`,
			`${figures.lost}`,
			`${figures.doubled}`,
			`${a('200')} / ${a('409')} / ${a('500')} / ${a('503')} / ${a('0')}`,
			load[0].toFixed(1),
		]);
	}
});

test("the README's queue-mode figure is the stress run's (nginx hash, When the Workflow Has Finished)", () => {
	const readme = readFileSync(join(__dirname, '..', '..', 'README.md'), 'utf8').replace(/\s+/g, ' ');
	const stress = JSON.parse(readFileSync(join(__dirname, '..', '..', 'bench', 'results', 'queue-stress.json'), 'utf8'));
	const { figures } = stress.results.find((r: { deployment: string }) => r.deployment === 'hash/whenFinished');
	expect(readme).toContain(`${figures.lost} lost and ${figures.doubled} doubled of ${figures.events} events in the stress run`);
});
