import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { parseUsdAmount, toPips, type UsdAmount } from '../../../shared/amounts';
import { isDryRun, noteFinding } from '../../../shared/dryRun';
import { apiRequest } from '../../../shared/transport';
import { operationError } from '../parameters';
import {
	addToRunTotal,
	checkAiFilledFields,
	checkOrder,
	checkRunTotal,
	modelInputProblem,
	parseSpendLimits,
	SpendLimitError,
	type SpendLimits,
} from '../spendLimits';
import { isToolRun } from '../toolDescriptions';
import { limitBreaches } from './accountLimits';
import { inputValue } from './inputItem';

/**
 * Payment Order → Create's guards around the spend limits (actions/spendLimits.ts): read once per
 * run, checked over the whole batch by `preflight` (the router calls it before any item starts, so
 * Concurrency > 1 cannot race it) and per order by `guardOrder` just before the order is sent.
 * In a dry run they add the service's read-only checks: supported assets and chains, and the
 * account limits against the order and the batch.
 */

interface RunGuards {
	limits: SpendLimits;
	total?: UsdAmount;
	/** What the orders of this run sent so far (Max Total per Run as a running sum). */
	sentPips: bigint;
	/** Dry run only: `chain/SYMBOL` pairs the service supports, and its account limits. */
	supported?: Set<string>;
	accountLimits?: IDataObject;
}

const runs = new WeakMap<object, RunGuards>();

const NOTHING_SENT = 'Nothing was sent. Spend limits are set in the node (Spend Limits) by the workflow owner; an AI agent cannot change them.';

/** A SpendLimitError as the item's error (its message names the rule, the value and the limit). */
function limitError(ctx: IExecuteFunctions, error: unknown, itemIndex: number): NodeOperationError {
	if (error instanceof SpendLimitError) return operationError(ctx, error.message, itemIndex, NOTHING_SENT);
	return error instanceof NodeOperationError ? error : new NodeOperationError(ctx.getNode(), error as Error, { itemIndex });
}

function readLimits(ctx: IExecuteFunctions): SpendLimits {
	const raw = (ctx.getNode().parameters.spendLimits ?? {}) as IDataObject;
	const toolRun = isToolRun(ctx);
	try {
		// A tool run's input item is the model's tool call: a limit read from it is the model's.
		const problem = toolRun ? modelInputProblem(raw, 'Spend Limits') : undefined;
		if (problem) throw new SpendLimitError('Spend Limits', problem);
		const limits = parseSpendLimits(ctx.getNodeParameter('spendLimits', 0, {}) as IDataObject, raw);
		checkAiFilledFields(limits, ctx.getNode().parameters, toolRun);
		return limits;
	} catch (error) {
		throw limitError(ctx, error, 0);
	}
}

/** The amount of one item as execute() reads it, or undefined when it does not parse (the item fails on its own). */
function itemAmount(ctx: IExecuteFunctions, itemIndex: number): UsdAmount | undefined {
	try {
		const raw =
			ctx.getNodeParameter('dataMode', itemIndex, 'defineBelow') === 'autoMapInputData'
				? inputValue(ctx.getInputData()[itemIndex]?.json ?? {}, 'amountUsd')
				: ctx.getNodeParameter('amountUsd', itemIndex, '');
		return parseUsdAmount(raw);
	} catch {
		return undefined;
	}
}

/** Once per run, before any item: the limits, Max Total per Run over every item, and a dry run's reads. */
export async function preflight(this: IExecuteFunctions, itemCount: number): Promise<void> {
	const guards: RunGuards = { limits: readLimits(this), sentPips: 0n };
	runs.set(this, guards);
	const dryRun = isDryRun(this);
	if (guards.limits.maxTotalPerRun || dryRun) {
		const amounts: UsdAmount[] = [];
		for (let itemIndex = 0; itemIndex < itemCount; itemIndex++) {
			const amount = itemAmount(this, itemIndex);
			if (amount) amounts.push(amount);
		}
		try {
			guards.total = checkRunTotal(guards.limits, amounts);
		} catch (error) {
			throw limitError(this, error, 0);
		}
	}
	if (dryRun) {
		const assets = (await apiRequest.call(this, { method: 'GET', path: '/supported-assets', itemIndex: 0 })) as unknown;
		const list = Array.isArray(assets) ? (assets as IDataObject[]) : [];
		guards.supported = new Set(list.map((asset) => `${String(asset.chain)}/${String(asset.symbol).toUpperCase()}`));
		guards.accountLimits = await apiRequest.call(this, { method: 'GET', path: '/account/limits', itemIndex: 0 });
	}
}

/** Checks one order against the limits (and, in a dry run, the service's answers) before it is sent. */
export function guardOrder(ctx: IExecuteFunctions, itemIndex: number, body: IDataObject, amount: UsdAmount): void {
	let guards = runs.get(ctx);
	if (!guards) {
		guards = { limits: readLimits(ctx), sentPips: 0n };
		runs.set(ctx, guards);
	}
	const order = {
		fromUserId: String(body.fromUserId ?? ''),
		toAddress: String(body.toAddress ?? ''),
		toChain: String(body.toChain ?? ''),
		asset: String(body.asset ?? ''),
		amount,
	};
	let passed: string[];
	try {
		passed = checkOrder(guards.limits, order);
	} catch (error) {
		throw limitError(ctx, error, itemIndex);
	}
	if (guards.total && guards.limits.maxTotalPerRun) {
		passed.push(`the run's total ${guards.total.text} USD is within Max Total per Run ${guards.limits.maxTotalPerRun.text}`);
	}
	for (const finding of passed) noteFinding(ctx, itemIndex, `Spend limit passed: ${finding}`);
	if (!isDryRun(ctx)) return;

	const pair = `${order.toChain}/${order.asset.toUpperCase()}`;
	if (guards.supported && !guards.supported.has(pair)) {
		throw operationError(
			ctx,
			`Dry run: ${order.asset} on ${order.toChain} is not among the service's supported assets`,
			itemIndex,
			'GET /supported-assets does not list this pair: the service would refuse the order.',
		);
	}
	noteFinding(ctx, itemIndex, `Supported assets: ${order.asset} on ${order.toChain} is supported`);
	if (guards.accountLimits) {
		const problems = limitBreaches(guards.accountLimits, amount);
		if (problems.length > 0) {
			throw operationError(ctx, `Dry run: the payment would breach the account limits: ${problems.join('; ')}`, itemIndex);
		}
		const total = guards.total;
		const batch = total ? limitBreaches(guards.accountLimits, total).filter((problem) => !problem.includes('maxTxUsd')) : [];
		noteFinding(
			ctx,
			itemIndex,
			batch.length > 0
				? `Account limits: this order fits, but the whole run (${total!.text} USD) would not: ${batch.join('; ')}`
				: `Account limits: this order${total ? ` and the whole run (${total.text} USD)` : ''} fit what remains (${remainingText(guards.accountLimits)})`,
		);
	}
}

/**
 * Counts the amount of the request about to be sent (the body itself, after Retry On Fail chose the
 * first try's) against Max Total per Run; refuses the item when the run would send more. Synchronous:
 * items running concurrently cannot both pass.
 */
export function countSent(ctx: IExecuteFunctions, itemIndex: number, amountUsd: unknown): void {
	const guards = runs.get(ctx);
	if (!guards) throw operationError(ctx, 'Nothing was sent for this item: the spend limits of this run were not read', itemIndex);
	try {
		guards.sentPips = addToRunTotal(guards.limits, guards.sentPips, parseUsdAmount(amountUsd, 'Amount (USD)'));
	} catch (error) {
		throw limitError(ctx, error, itemIndex);
	}
}

function remainingText(limits: IDataObject): string {
	return ['maxTxUsd', 'maxValuePerEpochUsd', 'maxValuePerDayUsd']
		.filter((name) => limits[name] && typeof limits[name] === 'object')
		.map((name) => {
			const entry = limits[name] as IDataObject;
			const left = typeof entry.remaining === 'number' ? entry.remaining : Number(toPips(entry.limit) - toPips(entry.used)) / 10_000;
			return `${name} ${left} USD`;
		})
		.join(', ');
}
