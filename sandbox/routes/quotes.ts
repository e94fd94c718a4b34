/** Quotes: instant when possible, standard as fallback, serviceable:false above what the service can take. */
import type { Router } from '../router';
import { parse, requestSchemas } from '../schemas';
import type { Services } from '../services';
import type { Quote } from '../state';
import { fail, fromPips, normalizeAddress, toPips, uuid } from '../util';
import { WAIT } from '../engine';
import { checkAmount } from './orders';

/** Above this an instant quote is not offered (standard fallback instead). */
export const INSTANT_MAX_USD = 100_000;
/** Above this nothing can be serviced: the quote answers serviceable:false. */
export const SERVICEABLE_MAX_USD = 5_000_000;
export const INSTANT_FEE_BPS = 10;
export const STANDARD_FEE_BPS = 2;
const QUOTE_MIN_REAL_MS = 10_000;

export function registerQuotes(r: Router, svc: Services): void {
	const { core, engine } = svc;
	r.add('POST', '/api/v1/quotes', (ctx) => {
		const b = parse(requestSchemas.quote, ctx.body);
		checkAmount(b.amountUsd);
		const acc = core.writeScope(ctx.auth, b.subaccountId);
		const caps = acc.capabilities;
		if (!caps.includes('INSTANT_PAYMENT') && !caps.includes('STANDARD_QUOTE_FALLBACK')) {
			fail(403, 'capability_required', 'Quotes need the INSTANT_PAYMENT or STANDARD_QUOTE_FALLBACK capability');
		}
		if (b.mode === 'standard' && !caps.includes('NETTED_QUOTES'))
			fail(403, 'capability_required', 'Requesting mode standard needs the NETTED_QUOTES capability');
		if (!core.isSupported(b.toChain, b.asset)) fail(400, 'unsupported_corridor', `Unsupported corridor ${b.asset} on ${b.toChain}`, { path: 'asset' });
		let toAddress: string | undefined;
		if (b.toAddress !== undefined) {
			toAddress = normalizeAddress(b.toChain, b.toAddress) ?? undefined;
			const w = toAddress ? core.accountWallet(acc.id, b.toChain, toAddress) : null;
			if (!w || w.status !== 'ACTIVE')
				fail(400, 'recipient_not_active', `Recipient ${b.toAddress} on ${b.toChain} is not an active registered wallet`, { path: 'toAddress' });
		}
		engine.checkLimits(acc, b.amountUsd);
		const instantOk = b.mode !== 'standard' && caps.includes('INSTANT_PAYMENT') && b.amountUsd <= INSTANT_MAX_USD;
		const standardOk = caps.includes('STANDARD_QUOTE_FALLBACK');
		const serviceable = b.amountUsd <= SERVICEABLE_MAX_USD && (instantOk || standardOk);
		const mode: 'instant' | 'standard' = instantOk ? 'instant' : 'standard';
		const feeBps = mode === 'instant' ? INSTANT_FEE_BPS : STANDARD_FEE_BPS;
		const ttl = mode === 'instant' ? WAIT.instantQuoteTtl : WAIT.standardQuoteTtl;
		const now = core.now();
		// Compressed by timeScale, but never under 10 s real time so a client can still use the quote.
		const expireDueAt = Math.max(core.scheduler.dueIn(ttl), Math.min(now + ttl, now + QUOTE_MIN_REAL_MS));
		const duration = mode === 'instant' ? 120 : 3600;
		if (b.name) {
			// A new quote with the same name expires the previous unconsumed one (and its reserved capacity).
			for (const q of core.data.quotes) if (q.accountId === acc.id && q.name === b.name && q.status === 'ACTIVE') q.status = 'EXPIRED';
		}
		const q: Quote = {
			quoteId: uuid(),
			accountId: acc.id,
			...(b.name ? { name: b.name } : {}),
			mode,
			...(toAddress ? { toAddress } : {}),
			toChain: b.toChain,
			asset: b.asset,
			amountUsd: b.amountUsd,
			feeBps,
			feeUsd: fromPips(Math.round((toPips(b.amountUsd) * feeBps) / 10000)),
			estimatedSettlement: { estimatedSettlementAt: core.iso(now + duration * 1000), estimatedDurationSeconds: duration, basis: 'funded_now' },
			status: serviceable ? 'ACTIVE' : 'UNSERVICEABLE',
			serviceable,
			...(serviceable ? {} : { reason: 'UNABLE_TO_SERVICE' }),
			createdAt: core.iso(now),
			expiresAt: core.iso(expireDueAt),
			expireDueAt,
		};
		core.data.quotes.push(q);
		core.quotes.set(q.quoteId, q);
		return { status: 201, body: publicQuote(q) };
	});
}

export function publicQuote(q: Quote): Record<string, unknown> {
	const { accountId: _a, expireDueAt: _e, ...rest } = q;
	void _a;
	void _e;
	return rest;
}
