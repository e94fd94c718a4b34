/**
 * 3b. The cost of verification alone per delivery: nodes/shared/signature.ts verifySignature (parse
 * the header, check the timestamp, HMAC, constant-time compare) against a bare HMAC-SHA256 of the
 * same bytes, on a delivery body of realistic size. Microseconds per call, median of runs.
 */
import { createHmac } from 'node:crypto';

import {
	decide,
	PROCESS_MAX_EVENTS,
	PROCESS_MAX_ORDERS,
	recordEmitted,
	STATIC_MAX_EVENTS,
	STATIC_MAX_ORDERS,
	TriggerMemory,
} from '../nodes/ClearinghouseTrigger/events';
import { signatureHeader, verifySignature } from '../nodes/shared/signature';
import type { BenchContext } from './context';
import { figure, show, type Figure } from './lib/stats';

export interface VerificationResult {
	bodyBytes: number;
	iterations: number;
	verifySignatureUs: Figure;
	bareHmacUs: Figure;
	/** verifySignature − bare HMAC: what the checks around the HMAC cost. */
	overheadUs: Figure;
	/**
	 * The trigger's other own work per delivery, with its process memory full (5,000 events and
	 * orders): merge the static-data mirror, decide, record, and write the mirror twice.
	 */
	bookkeepingUs: Figure;
}

function timeUs(iterations: number, work: () => unknown): number {
	const started = process.hrtime.bigint();
	for (let i = 0; i < iterations; i++) work();
	return Number(process.hrtime.bigint() - started) / 1000 / iterations;
}

export async function benchVerification(ctx: BenchContext): Promise<VerificationResult> {
	const iterations = 20_000;
	const runs = Math.max(ctx.config.runs, 5);
	ctx.log(`\n## 3b. Verification alone: ${iterations} calls per run, ${runs} runs`);
	const secret = `whsec_${'ab'.repeat(32)}`;
	// A delivery body shaped like the sandbox's payment_order event (about 1.5 KB).
	const rawBody = Buffer.from(
		JSON.stringify({
			id: 'evt_0123456789abcdef_payment_order',
			type: 'payment_order',
			created: new Date().toISOString(),
			accountId: ctx.state?.accountId ?? 'acc',
			data: {
				payment_order: {
					id: '6a1f3c2e-0000-4000-8000-000000000001',
					status: 'AWAITING_FUNDS',
					version: 1,
					amountUsd: 125.5,
					fromUserId: '80146f91-be0e-47f5-ade4-12f4d64b2c88',
					toAddress: '0xce2c6ef59804282e8a5db1257443d6e27fdeb43b',
					toChain: 'ethereum',
					asset: 'USDC',
					memo: 'Invoice 2026-0042',
					expiresAt: new Date().toISOString(),
					createdAt: new Date().toISOString(),
					depositAddresses: ['ethereum', 'solana', 'base'].map((chain) => ({ chain, address: `0x${'1'.repeat(40)}`, symbol: 'USDC' })),
					inboundTransfers: [],
					returns: { transfers: [] },
					fees: { feeUsd: 0.25, rateBps: 2 },
				},
			},
		}),
	);
	const t = Math.floor(Date.now() / 1000);
	const header = signatureHeader([secret], t, rawBody);
	const check = verifySignature({ header, rawBody, secrets: [secret] });
	if (!check.valid) throw new Error('the micro-benchmark delivery does not verify');
	const bare = () => createHmac('sha256', secret).update(`${t}.`).update(rawBody).digest('hex');
	const verify = () => verifySignature({ header, rawBody, secrets: [secret] });
	timeUs(iterations, bare);
	timeUs(iterations, verify);
	const verifyRuns: number[] = [];
	const bareRuns: number[] = [];
	for (let r = 0; r < runs; r++) {
		// Alternating order, as everywhere else.
		if (r % 2 === 0) {
			verifyRuns.push(timeUs(iterations, verify));
			bareRuns.push(timeUs(iterations, bare));
		} else {
			bareRuns.push(timeUs(iterations, bare));
			verifyRuns.push(timeUs(iterations, verify));
		}
	}
	// The trigger's bookkeeping, as its webhook() does it per delivery (the mirror is a snapshot).
	const memory = new TriggerMemory(PROCESS_MAX_EVENTS, PROCESS_MAX_ORDERS);
	const payload = JSON.parse(rawBody.toString('utf8')) as { data: { payment_order: Record<string, unknown> } };
	for (let i = 0; i < PROCESS_MAX_EVENTS; i++) recordEmitted(memory, `evt_fill_${i}`, { ...payload.data.payment_order, id: `fill-${i}` });
	const state: { memory?: unknown } = { memory: memory.snapshot(STATIC_MAX_EVENTS, STATIC_MAX_ORDERS) };
	const options = { statuses: [], passUnknownStatuses: true, includeDepositEvents: false, dropStaleEvents: true, dropDuplicates: true };
	let n = 0;
	const bookkeeping = () => {
		const order = { ...payload.data.payment_order, id: `bench-${n}` };
		const eventId = `evt_bench_${n++}`;
		memory.merge(state.memory);
		state.memory = memory.snapshot(STATIC_MAX_EVENTS, STATIC_MAX_ORDERS);
		if (decide(memory, eventId, order, options).emit) {
			recordEmitted(memory, eventId, order);
			state.memory = memory.snapshot(STATIC_MAX_EVENTS, STATIC_MAX_ORDERS);
		}
	};
	const bookkeepingIterations = 2_000;
	timeUs(bookkeepingIterations, bookkeeping);
	const bookkeepingRuns = Array.from({ length: runs }, () => timeUs(bookkeepingIterations, bookkeeping));
	const result: VerificationResult = {
		bookkeepingUs: figure(bookkeepingRuns, 'µs', 1),
		bodyBytes: rawBody.length,
		iterations,
		verifySignatureUs: figure(verifyRuns, 'µs', 2),
		bareHmacUs: figure(bareRuns, 'µs', 2),
		overheadUs: figure(
			verifyRuns.map((v, i) => v - bareRuns[i]),
			'µs',
			2,
		),
	};
	ctx.log(`  verifySignature (${result.bodyBytes} B body): ${show(result.verifySignatureUs)}`);
	ctx.log(`  bare HMAC-SHA256 hex:             ${show(result.bareHmacUs)}`);
	ctx.log(`  checks around the HMAC:           ${show(result.overheadUs)}`);
	ctx.log(`  trigger bookkeeping (memory full: merge mirror, decide, record, snapshot ×2): ${show(result.bookkeepingUs)}`);
	return result;
}
