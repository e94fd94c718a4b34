import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { parseUsdAmount, type UsdAmount } from '../../shared/amounts';
import { FieldError } from '../../shared/fieldError';
import { readJsonPath, trivialJsonPath } from '../../shared/jsonPath';
import { validatePathId } from '../../shared/pathId';
import { readSwitch, storedAt, type SwitchKind } from '../../shared/switches';
import { nodeOfRun } from './readOnce';

/** Per-item parameter readers and validators of the operations, and the errors they raise. */

export function pageSize(ctx: IExecuteFunctions, itemIndex: number): number {
	const options = ctx.getNodeParameter('options', itemIndex, {}) as IDataObject;
	const size = Math.floor(Number(options.pageSize ?? 1000));
	return Number.isFinite(size) ? Math.min(1000, Math.max(1, size)) : 1000;
}

/** Undefined for Return All, otherwise the Limit. */
export function listLimit(ctx: IExecuteFunctions, itemIndex: number): number | undefined {
	const returnAll = ctx.getNodeParameter('returnAll', itemIndex, false) as boolean;
	return returnAll ? undefined : (ctx.getNodeParameter('limit', itemIndex, 50) as number);
}

/** The id of a resource locator (or a plain string) for a request path: refused when empty or when it could change the path. */
export function locatorValue(ctx: IExecuteFunctions, name: string, itemIndex: number, label: string): string {
	return pathIdOf(ctx, ctx.getNodeParameter(name, itemIndex, '', { extractValue: true }), itemIndex, label);
}

/** A required ID parameter for a request path, checked as locatorValue checks it. */
export function requiredId(ctx: IExecuteFunctions, name: string, itemIndex: number, label: string): string {
	return pathIdOf(ctx, itemParameter(ctx, name, itemIndex, ''), itemIndex, label);
}

function pathIdOf(ctx: IExecuteFunctions, value: unknown, itemIndex: number, label: string): string {
	try {
		return validatePathId(value, label);
	} catch (error) {
		throw itemError(ctx, error, itemIndex);
	}
}

/**
 * A top-level parameter of one item: a trivial `={{ $json.a.b }}` reaching a string or a finite number is
 * read without n8n's expression engine (the same value); anything else is n8n's getNodeParameter.
 */
export function itemParameter(ctx: IExecuteFunctions, name: string, itemIndex: number, fallback: unknown): unknown {
	const stored = nodeOfRun(ctx).parameters[name];
	// A resource locator gives the value it holds (n8n's extractValue); a plain text or expression is read as it is.
	const locator = typeof stored === 'object' && stored !== null && 'mode' in stored && 'value' in stored;
	const path = trivialJsonPath(locator ? (stored as IDataObject).value : stored);
	if (path) {
		const found = readJsonPath(ctx.getInputData()[itemIndex]?.json, path);
		if (found) return found.value;
	}
	return ctx.getNodeParameter(name, itemIndex, fallback as never, locator ? { extractValue: true } : undefined);
}

/** A required text parameter, trimmed; refused when empty. */
export function requiredText(ctx: IExecuteFunctions, name: string, itemIndex: number, label: string): string {
	const value = String(itemParameter(ctx, name, itemIndex, '') ?? '').trim();
	if (value === '') throw operationError(ctx, `${label} is required`, itemIndex);
	return value;
}

/** An optional text value from a collection, trimmed; undefined when empty. */
export function optionalText(value: unknown): string | undefined {
	if (value === undefined || value === null) return undefined;
	const text = String(value).trim();
	return text === '' ? undefined : text;
}

/** The item's error, returned: every call site says `throw operationError(…)`. */
export function operationError(ctx: IExecuteFunctions, message: string, itemIndex: number, description?: string): NodeOperationError {
	return new NodeOperationError(ctx.getNode(), message, { itemIndex, description });
}

/** A FieldError as the item's error naming the field and the rule; anything else wrapped as it is. */
export function itemError(ctx: IExecuteFunctions, error: unknown, itemIndex: number): NodeOperationError {
	if (error instanceof FieldError) return operationError(ctx, `${error.field} ${error.rule}`, itemIndex);
	return new NodeOperationError(ctx.getNode(), error as Error, { itemIndex });
}

/** parseUsdAmount with the error as a NodeOperationError naming the field and the rule. */
export function usdAmount(ctx: IExecuteFunctions, input: unknown, itemIndex: number, field = 'Amount (USD)'): UsdAmount {
	try {
		return parseUsdAmount(input, field);
	} catch (error) {
		throw itemError(ctx, error, itemIndex);
	}
}

/** `[{chain, address}]` from a fixedCollection, refusing a second wallet on the same chain. */
export function chainWallets(
	ctx: IExecuteFunctions,
	collection: unknown,
	itemIndex: number,
	label: string,
	onePerChain: boolean,
): Array<{ chain: string; address: string }> {
	const entries = ((collection as IDataObject | undefined)?.wallet as IDataObject[] | undefined) ?? [];
	const wallets = entries.map((entry, n) => {
		const chain = optionalText(entry.chain);
		const address = optionalText(entry.address);
		if (!chain || !address) {
			throw operationError(ctx, `${label} #${n + 1} needs both a chain and an address`, itemIndex);
		}
		return { chain, address };
	});
	if (onePerChain) {
		const seen = new Set<string>();
		for (const { chain } of wallets) {
			if (seen.has(chain)) {
				throw operationError(ctx, `${label} allows one wallet per chain; "${chain}" appears more than once`, itemIndex);
			}
			seen.add(chain);
		}
	}
	return wallets;
}

/** Webhook secrets appear only in the outputs of Create and Rotate Secret. */
export function withoutSecrets(record: IDataObject): IDataObject {
	const rest = { ...record };
	delete rest.secret;
	delete rest.secretNext;
	return rest;
}

/** A response body whose shape the spec leaves open, as a record; undefined when it is not an object. */
export function bodyRecord(body: unknown): IDataObject | undefined {
	return body && typeof body === 'object' && !Array.isArray(body) ? (body as IDataObject) : undefined;
}

/** A response body whose shape the spec leaves open: its fields without secrets, or undefined when it is not an object. */
export function recordWithoutSecrets(body: unknown): IDataObject | undefined {
	const record = bodyRecord(body);
	return record && withoutSecrets(record);
}

/** `{ subaccountId }` from a Subaccount ID option (a read's query, or spread into a write's body); undefined for this account. */
export function subaccountQuery(options: IDataObject): IDataObject | undefined {
	const subaccountId = optionalText(options.subaccountId);
	return subaccountId ? { subaccountId } : undefined;
}

/** A webhook URL the service will take: it refuses anything but https. */
export function httpsUrl(ctx: IExecuteFunctions, url: string, itemIndex: number): string {
	if (!/^https:\/\//i.test(url)) throw operationError(ctx, `URL must start with https:// (got "${url}")`, itemIndex);
	return url;
}

/** Parses a JSON parameter (object or text) into an object. */
export function jsonObject(ctx: IExecuteFunctions, value: unknown, itemIndex: number, label: string): IDataObject {
	let parsed: unknown = value;
	if (typeof value === 'string') {
		if (value.trim() === '') return {};
		try {
			parsed = JSON.parse(value);
		} catch {
			throw operationError(ctx, `${label} must be valid JSON`, itemIndex);
		}
	}
	if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
		throw operationError(ctx, `${label} must be a JSON object`, itemIndex);
	}
	return parsed as IDataObject;
}

/** A boolean that guards money or events, read fail-closed: refused, naming `label` and the value, unless a clear on or off. */
export function switchParameter(ctx: IExecuteFunctions, path: string, itemIndex: number, fallback: boolean, label: string, kind: SwitchKind): boolean {
	const stored = storedAt(nodeOfRun(ctx).parameters, path);
	try {
		return readSwitch(stored, stored === undefined ? fallback : ctx.getNodeParameter(path, itemIndex, fallback), fallback, label, kind);
	} catch (error) {
		throw itemError(ctx, error, itemIndex);
	}
}
