import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { matchedPair, sentPairs, supportedAssetsOf, unsupportedPair, type SupportedAsset } from '../../shared/serviceErrors';
import { apiRequest } from '../../shared/transport';
import { operationError } from './parameters';

/**
 * The chains and assets of a write checked before it is sent, against GET /supported-assets (canonical in
 * the spec), read once per run. Fails closed: when the list cannot be read, or lists no pair, no write of
 * the run is sent (a failed read is kept).
 */

const runs = new WeakMap<object, Promise<SupportedAsset[]>>();

/** The operation in the panel's words and what it sends (`Payment Order → Create`, `order`); `path` when a field's label depends on it. */
export interface Writer {
	operation: string;
	sends: string;
	path?: string;
}

function pairCheck({ operation, sends }: Writer): string {
	return `${operation} reads the supported chains and assets (GET /supported-assets) once per run and sends no ${sends} whose pair it cannot check.`;
}

async function readSupportedAssets(ctx: IExecuteFunctions, itemIndex: number, writer: Writer): Promise<SupportedAsset[]> {
	let answer: unknown;
	try {
		answer = await apiRequest(ctx, { method: 'GET', path: '/supported-assets', itemIndex });
	} catch (error) {
		const failure =
			error instanceof NodeOperationError || error instanceof NodeApiError ? error : new NodeOperationError(ctx.getNode(), error as Error, { itemIndex });
		failure.description = `Nothing was sent. ${pairCheck(writer)}${failure.description ? `\n\n${failure.description}` : ''}`;
		throw failure;
	}
	const assets = supportedAssetsOf(answer);
	if (!assets || assets.length === 0) {
		throw operationError(
			ctx,
			'Chain and Asset could not be checked: the service answered its list of supported assets with no chain/asset pair',
			itemIndex,
			`Nothing was sent: run it again once the service lists its pairs (Supported Asset → Get Many shows them). ${pairCheck(writer)}`,
		);
	}
	return assets;
}

/** The run's supported pairs, read once (one promise that concurrent items share). */
async function supportedOf(ctx: IExecuteFunctions, itemIndex: number, writer: Writer): Promise<SupportedAsset[]> {
	let assets = runs.get(ctx);
	if (!assets) {
		assets = readSupportedAssets(ctx, itemIndex, writer);
		runs.set(ctx, assets);
	}
	return await assets;
}

/**
 * An order's Chain and Asset as the service names them (any case, a chain by its display name too), when
 * exactly one listed value matches; rewritten in `body`. Otherwise left for checkChainAndAsset to refuse.
 */
export async function matchChainAndAsset(ctx: IExecuteFunctions, itemIndex: number, body: IDataObject, writer: Writer): Promise<void> {
	if (typeof body.toChain !== 'string') return;
	const matched = matchedPair(String(body.toChain), typeof body.asset === 'string' ? body.asset : undefined, await supportedOf(ctx, itemIndex, writer));
	body.toChain = matched.chain;
	if (matched.asset !== undefined) body.asset = matched.asset;
}

/** Refuses, before it is sent, a write with a pair of `body` the service does not list, naming the panel field and its valid values. */
export async function checkChainAndAsset(ctx: IExecuteFunctions, itemIndex: number, body: IDataObject, writer: Writer): Promise<void> {
	const pairs = sentPairs({ body });
	if (pairs.length === 0) return;
	const supported = await supportedOf(ctx, itemIndex, writer);
	for (const pair of pairs) {
		const unsupported = unsupportedPair(pair, supported, writer.path);
		if (!unsupported) continue;
		const error = operationError(ctx, unsupported.message, itemIndex, `Nothing was sent for this item. ${pairCheck(writer)}`);
		// The panel field: the path itself (Chain), else the list it is in (Wallets for wallets[0].chain).
		const parameter = [unsupported.path, unsupported.path.split(/[[.]/)[0]].find((name) => name in (ctx.getNode().parameters ?? {}));
		if (parameter) error.context.parameter = parameter;
		throw error;
	}
}
