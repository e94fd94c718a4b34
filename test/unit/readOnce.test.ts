/** actions/readOnce.ts: a value read once per run and key, an error (thrown or a rejected promise) never kept. */
import { readOncePerRun } from '../../nodes/Clearinghouse/actions/readOnce';

describe('readOncePerRun', () => {
	it('reads each item of a run once, and each run on its own', () => {
		const once = readOncePerRun<string>();
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
		const once = readOncePerRun<string | undefined>();
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

	it('keys a run by any key, and keeps nothing of a promise that rejected', async () => {
		const once = readOncePerRun<Promise<string>, string>();
		const run = {};
		let calls = 0;
		await expect(once(run, 'sub-1', () => (calls++, Promise.reject(new Error('down'))))).rejects.toThrow('down');
		await expect(once(run, 'sub-1', () => (calls++, Promise.resolve('limits')))).resolves.toBe('limits');
		await expect(once(run, 'sub-1', () => (calls++, Promise.resolve('again')))).resolves.toBe('limits');
		expect(await once(run, '', () => (calls++, Promise.resolve('own account')))).toBe('own account');
		expect(calls).toBe(3);
	});
});
