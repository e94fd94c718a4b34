/** actions/readOnce.ts: a value read once per run and item, an error never kept. */
import { readOncePerItem } from '../../nodes/Clearinghouse/actions/readOnce';

describe('readOncePerItem', () => {
	it('reads each item of a run once, and each run on its own', () => {
		const once = readOncePerItem<string>();
		const reads: string[] = [];
		const read = (run: string, item: number) => () => {
			reads.push(`${run}:${item}`);
			return `${run}-${item}`;
		};
		const runA = {};
		const runB = {};
		expect(once(runA, 0, read('a', 0))).toBe('a-0');
		expect(once(runA, 0, read('a', 0))).toBe('a-0');
		expect(once(runA, 1, read('a', 1))).toBe('a-1');
		expect(once(runB, 0, read('b', 0))).toBe('b-0');
		expect(once(runA, 1, read('a', 1))).toBe('a-1');
		expect(reads).toEqual(['a:0', 'a:1', 'b:0']);
	});

	it('keeps undefined as a value read, but nothing of a read that threw', () => {
		const once = readOncePerItem<string | undefined>();
		const run = {};
		let calls = 0;
		expect(once(run, 0, () => (calls++, undefined))).toBeUndefined();
		expect(once(run, 0, () => (calls++, 'later'))).toBeUndefined();
		expect(calls).toBe(1);
		expect(() =>
			once(run, 1, () => {
				throw new Error('bad row');
			}),
		).toThrow('bad row');
		expect(once(run, 1, () => 'fixed')).toBe('fixed');
	});
});
