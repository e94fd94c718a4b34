/** replayOrRecord on its own: the one idempotency rule of the sandbox's keyed writes. */
import { replayOrRecord } from '../../sandbox/idempotency';
import type { IdempotencyRecord } from '../../sandbox/state';
import { ApiError, dict } from '../../sandbox/util';

const keyed = (store: Record<string, IdempotencyRecord>, key: string | null, hash: string) => ({
	store,
	key,
	hash,
	status: 201,
	reused: { message: 'used with another body', extra: { path: 'headers.idempotency-key' } },
});

describe('replayOrRecord', () => {
	test('the first request writes and records a snapshot; the same request replays it without writing', () => {
		const store = dict<IdempotencyRecord>();
		const made = { id: 'a', nested: { n: 1 } };
		let writes = 0;
		const first = replayOrRecord(keyed(store, 'k', 'h1'), () => (writes++, made));
		made.nested.n = 2; // a later change of the live record does not reach the recorded answer
		const again = replayOrRecord(keyed(store, 'k', 'h1'), () => (writes++, { id: 'b' }));
		expect(writes).toBe(1);
		expect(first).toEqual({ status: 201, body: { id: 'a', nested: { n: 1 } } });
		expect(again).toEqual(first);
	});

	test('the same key with another hash is a 409 with the endpoint wording, and writes nothing', () => {
		const store = dict<IdempotencyRecord>();
		replayOrRecord(keyed(store, 'k', 'h1'), () => ({ id: 'a' }));
		let error: unknown;
		try {
			replayOrRecord(keyed(store, 'k', 'h2'), () => {
				throw new Error('must not write');
			});
		} catch (e) {
			error = e;
		}
		expect(error).toBeInstanceOf(ApiError);
		expect(error).toMatchObject({
			status: 409,
			error: 'idempotency_key_reused',
			extra: { message: 'used with another body', path: 'headers.idempotency-key' },
		});
	});

	test('a refused write records nothing, so the key stays free', () => {
		const store = dict<IdempotencyRecord>();
		expect(() =>
			replayOrRecord(keyed(store, 'k', 'h1'), () => {
				throw new ApiError(400, 'validation_error');
			}),
		).toThrow(ApiError);
		expect(Object.keys(store)).toEqual([]);
		expect(replayOrRecord(keyed(store, 'k', 'h2'), () => ({ id: 'c' })).body).toEqual({ id: 'c' });
	});

	test('without a key every request writes and nothing is recorded', () => {
		const store = dict<IdempotencyRecord>();
		let writes = 0;
		replayOrRecord(keyed(store, null, 'h'), () => ({ n: ++writes }));
		replayOrRecord(keyed(store, null, 'h'), () => ({ n: ++writes }));
		expect(writes).toBe(2);
		expect(Object.keys(store)).toEqual([]);
	});
});
