import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { parseUsdAmount, type UsdAmount } from '../../../shared/amounts';
import { limitEntry } from '../../../shared/limits';
import { isDryRun, noteFinding } from '../dryRun';
import { supportedAssetsOf, unsupportedPair, type SupportedAsset } from '../../../shared/serviceErrors';
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
import { orderAmount } from './orderAmount';

/**
 * Payment Order → Create's guards around the spend limits (actions/spendLimits.ts): read once per
 * run, checked over the whole batch by `preflight` (the router calls it before any item starts, so
 * Concurrency > 1 cannot race it) and per order by `guardOrder` just before the order is sent.
 * Every run also reads GET /supported-assets once, and an order whose Chain and Asset it does not
 * list fails before it is sent. In a dry run they add the account limits against the order and the batch.
 */

interface RunGuards {
	limits: SpendLimits;
	total?: UsdAmount;
	/** What the orders of this run sent so far (Max Total per Run as a running sum). */
	sentPips: bigint;
	/** GET /supported-assets, read once per run when its first order is about to be sent (one promise: Concurrency shares it). */
	supported?: Promise<SupportedAsset[]>;
	/** Dry run only: the account limits. */
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
		return orderAmount(ctx, itemIndex, ctx.getNodeParameter('dataMode', itemIndex, 'defineBelow') === 'autoMapInputData');
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
		guards.accountLimits = await apiRequest.call(this, { method: 'GET', path: '/account/limits', itemIndex: 0 });
	}
}

const PAIR_CHECK =
	'Payment Order → Create reads the supported chains and assets (GET /supported-assets) once per run and sends no order whose pair it cannot check.';

/**
 * GET /supported-assets, read once per run before any order. Fails closed: when the list cannot be
 * read, or lists no pair, no order of the run is sent (the error of the read says why; run it again).
 */
async function readSupportedAssets(ctx: IExecuteFunctions, itemIndex: number): Promise<SupportedAsset[]> {
	let answer: unknown;
	try {
		answer = await apiRequest.call(ctx, { method: 'GET', path: '/supported-assets', itemIndex });
	} catch (error) {
		const failure =
			error instanceof NodeOperationError || error instanceof NodeApiError ? error : new NodeOperationError(ctx.getNode(), error as Error, { itemIndex });
		failure.description = `Nothing was sent. ${PAIR_CHECK}${failure.description ? `\n\n${failure.description}` : ''}`;
		throw failure;
	}
	const assets = supportedAssetsOf(answer);
	if (!assets || assets.length === 0) {
		throw operationError(
			ctx,
			'Chain and Asset could not be checked: the service answered its list of supported assets with no chain/asset pair',
			itemIndex,
			`Nothing was sent: run it again once the service lists its pairs (Supported Asset → Get Many shows them). ${PAIR_CHECK}`,
		);
	}
	return assets;
}

/** Checks one order against the limits, the supported pairs (and, in a dry run, the account limits) before it is sent. */
export async function guardOrder(ctx: IExecuteFunctions, itemIndex: number, body: IDataObject, amount: UsdAmount): Promise<void> {
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

	guards.supported ??= readSupportedAssets(ctx, itemIndex);
	const unsupported = unsupportedPair({ chainPath: 'toChain', chain: order.toChain, assetPath: 'asset', asset: order.asset }, await guards.supported);
	if (unsupported) {
		const error = operationError(ctx, unsupported.message, itemIndex, `Nothing was sent for this item. ${PAIR_CHECK}`);
		if (unsupported.path in (ctx.getNode().parameters ?? {})) error.context.parameter = unsupported.path;
		throw error;
	}
	if (!isDryRun(ctx)) return;
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

/** What remains of the value limits, in words (the API's names in brackets): `400 USD per order (maxTxUsd), …`. */
function remainingText(limits: IDataObject): string {
	return (
		[
			['maxTxUsd', 'per order'],
			['maxValuePerEpochUsd', 'in this netting window'],
			['maxValuePerDayUsd', 'today'],
		] as const
	)
		.map(([name, words]) => [name, words, limitEntry(limits, name)?.remaining] as const)
		.filter(([, , left]) => left !== undefined)
		.map(([name, words, left]) => `${left} USD ${words} (${name})`)
		.join(', ');
}
