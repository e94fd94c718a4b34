/** The rewards rules API (own server): rules library with idempotent writes, structure checks, block catalogue. */
import type { Router } from '../router';
import { parse, queryObject, requestSchemas } from '../schemas';
import type { Services } from '../services';
import type { RewardRule } from '../state';
import { ApiError, canonical, fail, sha, uuid } from '../util';
import { replayOrRecord } from '../idempotency';

export const LIBRARY_SIZE = 50;

const decimal = { type: 'string', pattern: '^\\d+(\\.\\d+)?$' };
const MEASURES = ['daily_balance', 'transaction_volume', 'transaction_count'];
const ALL_CONDITIONS = ['always', 'min_balance', 'kyb_approved'];
const ALL_PAYOUTS = ['fixed', 'percentage', 'tiered'];
const ALL_LIMITS = ['cap_per_period', 'cap_per_user'];

/** The catalogue; cross references say which blocks combine. */
export const RULE_BLOCKS = {
	measures: [
		{
			type: 'daily_balance',
			description: 'Average end-of-day balance over the period',
			paramsSchema: { type: 'object', required: ['metricKey'], properties: { metricKey: { type: 'string', minLength: 1 } } },
			conditions: ALL_CONDITIONS,
			payouts: ALL_PAYOUTS,
			limits: ALL_LIMITS,
		},
		{
			type: 'transaction_volume',
			description: 'USD volume of settled payment orders',
			paramsSchema: { type: 'object', required: ['metricKey'], properties: { metricKey: { type: 'string', minLength: 1 } } },
			conditions: ['always', 'kyb_approved'],
			payouts: ALL_PAYOUTS,
			limits: ALL_LIMITS,
		},
		{
			type: 'transaction_count',
			description: 'Count of settled payment orders',
			paramsSchema: { type: 'object', required: ['metricKey'], properties: { metricKey: { type: 'string', minLength: 1 } } },
			conditions: ['always', 'kyb_approved'],
			payouts: ['fixed', 'tiered'],
			limits: ['cap_per_period'],
		},
	],
	conditions: [
		{ type: 'always', description: 'Always eligible', paramsSchema: { type: 'object', properties: {} }, measures: MEASURES },
		{
			type: 'min_balance',
			description: 'Eligible above a minimum balance',
			paramsSchema: { type: 'object', required: ['amount'], properties: { amount: decimal } },
			measures: ['daily_balance'],
		},
		{ type: 'kyb_approved', description: 'Eligible while KYB is approved', paramsSchema: { type: 'object', properties: {} }, measures: MEASURES },
	],
	payouts: [
		{
			type: 'fixed',
			description: 'A fixed amount per period',
			paramsSchema: { type: 'object', required: ['amount'], properties: { amount: decimal } },
			measures: MEASURES,
		},
		{
			type: 'percentage',
			description: 'A rate of the measure',
			paramsSchema: { type: 'object', required: ['rate'], properties: { rate: decimal } },
			measures: ['daily_balance', 'transaction_volume'],
		},
		{
			type: 'tiered',
			description: 'Contiguous tiers starting at 0; the last may be open-ended',
			paramsSchema: {
				type: 'object',
				required: ['tiers'],
				properties: {
					tiers: {
						type: 'array',
						minItems: 1,
						items: { type: 'object', required: ['from', 'amount'], properties: { from: decimal, to: decimal, amount: decimal } },
					},
				},
			},
			measures: MEASURES,
		},
	],
	limits: [
		{
			type: 'cap_per_period',
			description: 'Maximum payout per period',
			paramsSchema: { type: 'object', required: ['amount'], properties: { amount: decimal } },
			measures: MEASURES,
		},
		{
			type: 'cap_per_user',
			description: 'Maximum payout per user over the program',
			paramsSchema: { type: 'object', required: ['amount'], properties: { amount: decimal } },
			measures: ['daily_balance', 'transaction_volume'],
		},
	],
};

function bad(error: string, message: string, path: string): never {
	throw new ApiError(422, error, { message, path });
}
const isObj = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
const DEC = /^\d+(\.\d+)?$/;
function decimalAt(v: unknown, path: string): number {
	if (typeof v !== 'string' || !DEC.test(v)) bad('invalid_amount', `${path} must be a decimal string such as "10.00"`, path);
	return Number(v);
}

/** Throws 422 `{error, message, path}` when the definition breaks the rule structure. */
export function validateDefinition(def: Record<string, unknown>): void {
	const block = (name: 'measure' | 'condition' | 'payout'): Record<string, unknown> & { type: string } => {
		const b = def[name];
		if (!isObj(b)) bad('missing_block', `definition.${name} is required`, `definition.${name}`);
		if (typeof b.type !== 'string') bad('invalid_type', `definition.${name}.type is required`, `definition.${name}.type`);
		return b as Record<string, unknown> & { type: string };
	};
	const measure = block('measure');
	const m = RULE_BLOCKS.measures.find((x) => x.type === measure.type);
	if (!m) bad('unknown_measure', `Unknown measure type ${measure.type}`, 'definition.measure.type');
	if (typeof measure.metricKey !== 'string' || !measure.metricKey)
		bad('invalid_params', 'definition.measure.metricKey is required', 'definition.measure.metricKey');
	const condition = block('condition');
	if (!ALL_CONDITIONS.includes(condition.type)) bad('unknown_condition', `Unknown condition type ${condition.type}`, 'definition.condition.type');
	if (!m.conditions.includes(condition.type))
		bad('condition_not_allowed', `Condition ${condition.type} cannot be used with measure ${m.type}`, 'definition.condition.type');
	if (condition.type === 'min_balance') decimalAt(condition.amount, 'definition.condition.amount');
	const payout = block('payout');
	if (!ALL_PAYOUTS.includes(payout.type)) bad('unknown_payout', `Unknown payout type ${payout.type}`, 'definition.payout.type');
	if (!m.payouts.includes(payout.type)) bad('payout_not_allowed', `Payout ${payout.type} cannot be used with measure ${m.type}`, 'definition.payout.type');
	if (payout.type === 'fixed') decimalAt(payout.amount, 'definition.payout.amount');
	if (payout.type === 'percentage') decimalAt(payout.rate, 'definition.payout.rate');
	if (payout.type === 'tiered') {
		const tiers = payout.tiers;
		if (!Array.isArray(tiers) || tiers.length === 0) bad('tiers_empty', 'definition.payout.tiers needs at least one tier', 'definition.payout.tiers');
		let prevTo: number | null = 0;
		(tiers as unknown[]).forEach((t: unknown, i: number) => {
			const p = `definition.payout.tiers[${i}]`;
			if (!isObj(t)) bad('invalid_tier', `${p} must be an object`, p);
			const from = decimalAt(t.from, `${p}.from`);
			if (prevTo === null) bad('tiers_unbounded', `Only the last tier may omit "to"`, `definition.payout.tiers[${i - 1}].to`);
			if (from > prevTo) bad('tiers_gap', `Tier ${i} starts at ${from} but the previous tier ends at ${prevTo}`, `${p}.from`);
			if (from < prevTo) bad('tiers_overlap', `Tier ${i} starts at ${from}, inside the previous tier ending at ${prevTo}`, `${p}.from`);
			decimalAt(t.amount, `${p}.amount`);
			if (t.to === undefined || t.to === null) prevTo = null;
			else {
				const to = decimalAt(t.to, `${p}.to`);
				if (to <= from) bad('tier_range_invalid', `Tier ${i} must end after it starts`, `${p}.to`);
				prevTo = to;
			}
		});
	}
	const limits = def.limits;
	if (!Array.isArray(limits)) bad('missing_block', 'definition.limits must be an array', 'definition.limits');
	(limits as unknown[]).forEach((l: unknown, i: number) => {
		const p = `definition.limits[${i}]`;
		if (!isObj(l) || typeof l.type !== 'string') bad('invalid_type', `${p}.type is required`, `${p}.type`);
		if (!ALL_LIMITS.includes(l.type)) bad('unknown_limit', `Unknown limit type ${l.type}`, `${p}.type`);
		if (!m.limits.includes(l.type)) bad('limit_not_allowed', `Limit ${l.type} cannot be used with measure ${m.type}`, `${p}.type`);
		decimalAt(l.amount, `${p}.amount`);
	});
}

function summarize(def: Record<string, unknown>): string {
	const g = (k: string) => (def[k] as Record<string, unknown>) ?? {};
	const payout = g('payout');
	const what =
		payout.type === 'fixed'
			? `pays ${payout.amount}`
			: payout.type === 'percentage'
				? `pays ${payout.rate}%`
				: `pays by ${(payout.tiers as unknown[]).length} tiers`;
	const limits = (def.limits as Record<string, unknown>[]).map((l) => `${l.type} ${l.amount}`).join(', ');
	return `${what} on ${g('measure').type} (${g('measure').metricKey}) when ${g('condition').type}${limits ? `; ${limits}` : ''}`;
}

export function registerRewards(r: Router, svc: Services): void {
	const { core } = svc;
	const requireKey = (headers: Record<string, unknown>): string => {
		const key = headers['idempotency-key'];
		if (typeof key !== 'string' || key.length === 0)
			fail(400, 'idempotency_key_required', 'The Idempotency-Key header is required on POST, PATCH and DELETE', { path: 'headers.idempotency-key' });
		if (key.length > 255) fail(400, 'validation_error', 'Idempotency-Key is at most 255 characters', { path: 'headers.idempotency-key' });
		return key;
	};

	r.add('POST', '/api/v1/rewards/rules', (ctx) => {
		const key = requireKey(ctx.headers);
		// Checked before the body is validated: a replay answers even if the rules library filled up since.
		return replayOrRecord(
			{
				store: core.data.rewardIdem,
				key: `${ctx.auth.account.id}:POST:/rewards/rules:${key}`,
				hash: sha(canonical(ctx.body ?? null)),
				status: 201,
				reused: { message: 'Idempotency-Key was already used with a different request', extra: { path: 'headers.idempotency-key' } },
			},
			() => {
				const b = parse(requestSchemas.rewardCreate, ctx.body);
				validateDefinition(b.definition);
				const active = core.data.rewardRules.filter((x) => x.accountId === ctx.auth.account.id && x.status === 'active');
				if (active.length >= LIBRARY_SIZE) fail(409, 'library_full', `The rules library is full (${LIBRARY_SIZE} active rules)`, { path: '' });
				const now = core.iso();
				const rule: RewardRule = {
					id: 'rule_' + uuid().replace(/-/g, '').slice(0, 20),
					accountId: ctx.auth.account.id,
					name: b.name,
					description: b.description ?? null,
					version: 1,
					status: 'active',
					isDefault: b.isDefault ?? false,
					definition: b.definition,
					summary: summarize(b.definition),
					usedBy: [],
					createdAt: now,
					updatedAt: now,
				};
				core.data.rewardRules.push(rule);
				core.rules.set(rule.id, rule);
				return publicRule(rule);
			},
		);
	});

	r.add('GET', '/api/v1/rewards/rules', (ctx) => {
		const q = parse(requestSchemas.rewardList, queryObject(ctx.query));
		const status = q.status ?? 'active';
		const rules = core.data.rewardRules
			.filter((x) => x.accountId === ctx.auth.account.id && x.status === status)
			.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.createdAt < b.createdAt ? -1 : 1))
			.map(publicRule);
		return { status: 200, body: { rules } };
	});

	r.add('GET', '/api/v1/rewards/rule-blocks', () => ({ status: 200, body: RULE_BLOCKS }));
}

export function publicRule(r: RewardRule): Record<string, unknown> {
	const { accountId: _a, ...rest } = r;
	void _a;
	return JSON.parse(JSON.stringify(rest)) as Record<string, unknown>;
}
