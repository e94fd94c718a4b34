import type { IDataObject } from 'n8n-workflow';

/**
 * Dry run (Options → Dry Run): every check and read runs, and the transport, the one place that enforces
 * it, throws DryRunStop with the request instead of any write (never the key: the transport adds it when
 * sending). Runs are marked by their context object, weakly: nothing outlives the run.
 */
const dryRuns = new WeakMap<object, Map<number, string[]>>();

export function startDryRun(ctx: object): void {
	dryRuns.set(ctx, new Map());
}

export function endDryRun(ctx: object): void {
	dryRuns.delete(ctx);
}

export function isDryRun(ctx: object): boolean {
	return dryRuns.has(ctx);
}

/** Records what a read-only check found for an item (shown in its dry-run output); a no-op outside a dry run. */
export function noteFinding(ctx: object, itemIndex: number, finding: string): void {
	const findings = dryRuns.get(ctx);
	if (!findings) return;
	const list = findings.get(itemIndex) ?? [];
	list.push(finding);
	findings.set(itemIndex, list);
}

export function findingsOf(ctx: object, itemIndex: number): string[] {
	return dryRuns.get(ctx)?.get(itemIndex) ?? [];
}

/** The request a dry run did not send: what the item's output shows. */
export interface UnsentRequest {
	method: string;
	url: string;
	path: string;
	qs?: IDataObject;
	headers?: Record<string, string>;
	body?: IDataObject;
}

/** Thrown by the transport in place of a write during a dry run; the router makes it the item's output. */
export class DryRunStop extends Error {
	constructor(readonly request: UnsentRequest) {
		super(`Dry run: ${request.method} ${request.path} was not sent`);
		this.name = 'DryRunStop';
	}
}

/** The output item of a write a dry run stopped. */
export function dryRunOutput(operation: string, stop: DryRunStop, findings: string[]): IDataObject {
	return {
		dryRun: true,
		operation,
		sent: false,
		request: { ...stop.request } as unknown as IDataObject,
		checks: findings,
		note: 'Dry run: every check passed and nothing was written. This is the request the node would send (the API key is added by the credential and never shown).',
	};
}
