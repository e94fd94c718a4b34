/** Receive rulesets: immutable definitions with dedicated deposit addresses; only the name can change. */
import type { Router } from '../router';
import { parse, requestSchemas } from '../schemas';
import type { Services } from '../services';
import { CHAINS, Ruleset } from '../state';
import { canonical, fail, normalizeAddress, sha, uuid } from '../util';

export function publicRuleset(r: Ruleset): Record<string, unknown> {
	const { idempotencyKey: _k, bodyHash: _h, ...rest } = r;
	void _k;
	void _h;
	return rest;
}

export function registerRulesets(r: Router, svc: Services): void {
	const { core, engine } = svc;

	r.add('POST', '/api/v1/rulesets', (ctx) => {
		const b = parse(requestSchemas.rulesetCreate, ctx.body);
		const acc = core.writeScope(ctx.auth, b.subaccountId);
		const hash = sha(canonical(b));
		// Not replayOrRecord: the key is kept on the ruleset itself, per write account, and a replay
		// answers the ruleset as it is now (a later rename shows), not a snapshot of the first answer.
		if (b.idempotencyKey) {
			const prev = core.data.rulesets.find((x) => x.accountId === acc.id && x.idempotencyKey === b.idempotencyKey);
			if (prev) {
				if (prev.bodyHash !== hash) fail(409, 'idempotency_key_reused', 'idempotencyKey was already used with a different body');
				return { status: 201, body: publicRuleset(prev) };
			}
		}
		if (!core.isSupported(b.deliveredChain)) fail(400, 'validation_error', `Unsupported deliveredChain ${b.deliveredChain}`, { path: 'deliveredChain' });
		if (!core.isSupported(b.deliveredChain, b.deliveredAsset))
			fail(400, 'validation_error', `Unsupported deliveredAsset ${b.deliveredAsset} on ${b.deliveredChain}`, { path: 'deliveredAsset' });
		const toAddress = normalizeAddress(b.deliveredChain, b.toAddress);
		const w = toAddress ? core.accountWallet(acc.id, b.deliveredChain, toAddress) : null;
		if (!w || w.status !== 'ACTIVE')
			fail(400, 'recipient_not_active', `toAddress ${b.toAddress} is not an ACTIVE wallet of the account on ${b.deliveredChain}`, { path: 'toAddress' });
		const now = core.iso();
		const rs: Ruleset = {
			id: uuid(),
			accountId: acc.id,
			senderUserId: null,
			name: b.name ?? null,
			status: 'ACTIVE',
			deliveredAsset: b.deliveredAsset,
			deliveredChain: b.deliveredChain,
			toAddress: toAddress!,
			mode: b.mode ?? 'NETTED',
			forceInstant: b.mode === 'INSTANT',
			metadata: b.metadata ?? {},
			addresses: CHAINS.map((chain) => ({ chain, status: 'PENDING', address: null, failureReason: null })),
			createdAt: now,
			updatedAt: now,
			idempotencyKey: b.idempotencyKey,
			bodyHash: hash,
		};
		core.data.rulesets.push(rs);
		core.rulesets.set(rs.id, rs);
		engine.scheduleProvision(rs);
		return { status: 201, body: publicRuleset(rs) };
	});

	r.add('PATCH', '/api/v1/rulesets/:id', (ctx) => {
		const b = parse(requestSchemas.rulesetRename, ctx.body);
		const rs = core.rulesets.get(ctx.params.id);
		const account = b.subaccountId ? core.child(ctx.auth, b.subaccountId) : ctx.auth.account;
		if (!rs || rs.accountId !== account.id) fail(404, 'ruleset_not_found', `Ruleset ${ctx.params.id} not found`);
		core.assertWritable(core.accounts.get(rs.accountId)!);
		// Documented choice: a deactivated ruleset answers 409 on rename.
		if (rs.status !== 'ACTIVE') fail(409, 'ruleset_deactivated', 'A deactivated ruleset cannot be renamed');
		if (rs.name !== b.name) {
			rs.name = b.name;
			rs.updatedAt = core.iso();
		}
		return { status: 200, body: publicRuleset(rs) };
	});
}
