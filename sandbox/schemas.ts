/** One zod schema per endpoint body and query, from the specification's field tables and constraints. */
import { z } from 'zod';
import { ORDER_STATUSES } from './state';
import { ApiError } from './util';

const uuidString = z.string().uuid();
const isoDateTime = z.string().datetime({ offset: true });
const chainAddress = z.object({ chain: z.string().min(1), address: z.string().min(1) });
const boolQuery = z.enum(['true', 'false']).transform((v) => v === 'true');
const intQuery = (min: number, max: number) => z.string().regex(/^\d+$/, 'must be an integer').transform(Number).pipe(z.number().int().min(min).max(max));
const positiveUsd = z.number().finite().gt(0, 'must be greater than 0');

/** The public API's request bodies and queries, by endpoint. */
export const requestSchemas = {
	addUser: z.object({
		label: z.string().min(1).max(255),
		wallets: z.array(chainAddress),
		returnWallets: z.array(chainAddress).optional(),
		subaccountId: uuidString.optional(),
	}),
	payment: z.object({
		fromUserId: z.string().min(1),
		toAddress: z.string().min(1),
		toChain: z.string().min(1),
		asset: z.string().min(1),
		amountUsd: positiveUsd,
		expiresAt: isoDateTime.optional(),
		memo: z.string().nullable().optional(),
		idempotencyKey: z.string().min(1).max(255).optional(),
		mode: z.enum(['standard', 'instant']).optional(),
		quoteId: z.string().min(1).optional(),
		subaccountId: uuidString.optional(),
	}),
	quote: z.object({
		toChain: z.string().min(1),
		asset: z.string().min(1),
		amountUsd: positiveUsd,
		toAddress: z.string().min(1).optional(),
		mode: z.literal('standard').optional(),
		name: z.string().min(1).max(64).optional(),
		subaccountId: uuidString.optional(),
	}),
	listOrders: z.object({
		subaccountId: uuidString.optional(),
		includeSubaccounts: boolQuery.optional(),
		fromUserId: z.string().min(1).optional(),
		// Marked required in the reference: a strict service answers 400 without it.
		status: z
			.array(z.enum(ORDER_STATUSES), { required_error: 'required: one or more order statuses (repeat the parameter or separate with commas)' })
			.min(1, 'required: one or more order statuses (repeat the parameter or separate with commas)'),
		createdAfter: isoDateTime.optional(),
		createdBefore: isoDateTime.optional(),
		limit: intQuery(1, 1000).optional(),
		offset: intQuery(0, Number.MAX_SAFE_INTEGER).optional(),
	}),
	scopeQuery: z.object({ subaccountId: uuidString.optional(), includeSubaccounts: boolQuery.optional() }),
	// GET /users: not in the reference; a third-party client's (field notes): limit and offset only.
	listUsers: z.object({ limit: intQuery(1, 1000).optional(), offset: intQuery(0, Number.MAX_SAFE_INTEGER).optional() }),
	transactions: z.object({
		transactions: z.array(z.object({ hash: z.string().min(1), chain: z.string().min(1) })).min(1),
		subaccountId: uuidString.optional(),
	}),
	cancel: z.object({ reason: z.string().optional(), subaccountId: uuidString.optional() }),
	returnDetails: z.object({ userId: z.string().min(1), wallets: z.array(chainAddress).min(1).max(32), subaccountId: uuidString.optional() }),
	rulesetCreate: z.object({
		deliveredAsset: z.string().min(1),
		deliveredChain: z.string().min(1),
		toAddress: z.string().min(1),
		mode: z.enum(['NETTED', 'INSTANT']).optional(),
		name: z.string().trim().min(1).max(120).optional(),
		metadata: z.record(z.unknown()).optional(),
		idempotencyKey: z.string().min(1).max(255).optional(),
		subaccountId: uuidString.optional(),
	}),
	rulesetRename: z.object({ name: z.string().trim().min(1).max(120), subaccountId: uuidString.optional() }),
	endpointCreate: z.object({
		url: z.string().min(1),
		description: z.string().max(500).nullable().optional(),
		eventTypes: z.array(z.literal('payment_order')).min(1).optional(),
	}),
	endpointPatch: z
		.object({
			url: z.string().min(1).optional(),
			description: z.string().max(500).nullable().optional(),
			status: z.enum(['ENABLED', 'DISABLED']).optional(),
		})
		.refine((b) => b.url !== undefined || b.description !== undefined || b.status !== undefined, 'at least one of url, description, status'),
	rotateQuery: z.object({ immediate: boolQuery.optional() }),
	deliveriesQuery: z.object({
		endpointId: uuidString.optional(),
		status: z.enum(['PENDING', 'DISPATCHED', 'DELIVERED', 'FAILED', 'SKIPPED']).optional(),
		type: z.literal('payment_order').optional(),
		limit: intQuery(1, 1000).optional(),
		offset: intQuery(0, Number.MAX_SAFE_INTEGER).optional(),
	}),
	rewardCreate: z.object({
		name: z.string().trim().min(1).max(120),
		description: z.string().max(2000).nullable().optional(),
		definition: z.record(z.unknown()),
		isDefault: z.boolean().optional(),
	}),
	rewardList: z.object({ status: z.enum(['active', 'archived']).optional() }),
};

export function zodMessage(e: z.ZodError): { message: string; path: string } {
	const i = e.issues[0];
	const path = i.path.map((p, n) => (typeof p === 'number' ? `[${p}]` : n ? `.${p}` : p)).join('');
	return { message: path ? `${path}: ${i.message}` : i.message, path };
}

/** Parses or throws 400 `{error: 'validation_error', message, path}`. */
export function parse<T extends z.ZodTypeAny>(schema: T, value: unknown, prefix = ''): z.output<T> {
	const r = schema.safeParse(value ?? {});
	if (r.success) return r.data;
	const { message, path } = zodMessage(r.error);
	const full = prefix && path ? `${prefix}.${path}` : prefix || path;
	throw new ApiError(400, 'validation_error', { message: prefix ? `${prefix}${path ? '.' : ''}${message}` : message, path: full });
}

/** URLSearchParams to an object: repeated keys become arrays for `arrayKeys`, comma lists are split. */
export function queryObject(q: URLSearchParams, arrayKeys: string[] = []): Record<string, unknown> {
	const out = Object.create(null) as Record<string, unknown>;
	for (const key of new Set(q.keys())) {
		const all = q.getAll(key);
		out[key] = arrayKeys.includes(key)
			? all
					.flatMap((v) => v.split(','))
					.map((v) => v.trim())
					.filter(Boolean)
			: all[all.length - 1];
	}
	return out;
}
