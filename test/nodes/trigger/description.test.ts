/**
 * The trigger's description as n8n reads it: versions, the native resolvers of the webhook
 * description (n8n 2.40 then evaluates nothing per delivery for the acknowledgement), and the v2
 * Events filter that the editor's nodes panel turns into one trigger entry per event. The editor
 * reads the built package, so the last block loads dist/ when it exists (`npm run build`).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import type { INodeProperties, INodeType, IWebhookDescription } from 'n8n-workflow';
import { resolveWebhookDescriptionField, webhookDescriptionIsNativelyResolvable } from 'n8n-workflow';

import { ClearinghouseTrigger } from '../../../nodes/ClearinghouseTrigger/ClearinghouseTrigger.node';
import { PAYMENT_ORDER_STATUSES } from '../../../nodes/shared/paymentOrderStatus';
import { makeWorkflow } from '../../../harness/n8nContexts';

const source = new ClearinghouseTrigger();
const built = join(__dirname, '..', '..', '..', 'dist', 'nodes', 'ClearinghouseTrigger', 'ClearinghouseTrigger.node.js');

/** Whether a property shows for a version (a list of versions, or n8n's `{ _cnd: { gte } }`). */
const shownIn = (p: INodeProperties, version: number) => {
	const versions = p.displayOptions?.show?.['@version'] as Array<number | { _cnd: { gte: number } }> | undefined;
	return !versions || versions.some((v) => (typeof v === 'number' ? v === version : version >= v._cnd.gte));
};

/**
 * What n8n 2.40.7's editor does to list a trigger's entries in the nodes panel (n8n-editor-ui,
 * workflows.store: the first property whose display name is Event, Events or Trigger On, over all
 * properties, whatever their version; its options other than `*`, ``, ` ` become one entry each).
 */
function nodesPanelEntries(node: INodeType): Array<{ event: string; values: Record<string, unknown> }> {
	const names = ['event', 'events', 'trigger on'];
	if (!node.description.displayName.toLowerCase().includes('trigger')) return [];
	const p = node.description.properties.find((x) => names.includes(x.displayName?.toLowerCase()));
	if (!p?.options) return [{ event: 'generic', values: {} }];
	return (p.options as Array<{ name: string; value: string; action?: string }>)
		.filter((o) => !['*', '', ' '].includes(o.name))
		.map((o) => ({ event: o.action ?? o.name, values: { [p.name]: p.type === 'multiOptions' ? [o.value] : o.value } }));
}

describe('versions', () => {
	it('declares 1, 2 and 3, new nodes get 3', () => {
		expect(source.description.version).toEqual([1, 2, 3]);
		expect(source.description.defaultVersion).toBe(3);
	});

	it.each([
		[1, true],
		[2, true],
		[3, false],
	])('v%s: Pass Unknown Statuses defaults to %s (saved triggers keep what they had: n8n saves no defaults)', (version, expected) => {
		const shown = source.description.properties.filter((p) => p.name === 'passUnknownStatuses' && shownIn(p, version));
		expect(shown).toHaveLength(1);
		expect(shown[0].default).toBe(expected);
		// What n8n fills in for a node saved without the value (as n8n saves a default): the version's default.
		const { workflow, node } = makeWorkflow(source, { parameters: {}, credentials: { apiKey: 'k', baseUrl: 'http://127.0.0.1:1' }, typeVersion: version });
		expect(workflow.nodes[node.name].parameters.passUnknownStatuses).toBe(expected);
	});

	it.each([
		[[], 'Every payment order event'],
		[['FUNDED'], 'Order Funded'],
		[['FUNDED', 'DISTRIBUTED'], 'Order Funded, Order Distributed'],
		[['FUNDED', 'DISTRIBUTED', 'REFUNDED', 'CANCELED'], 'Order Funded, Order Distributed and 2 more'],
		// n8n resolves an expression in $parameter: the events it gives, or a plain word when they are not a list.
		['={{ ["FUNDED"] }}', 'Order Funded'],
		['={{ "FUNDED" }}', 'Events set by an expression'],
	])('the canvas subtitle of Events %j reads "%s"', (statuses, expected) => {
		const { workflow, node } = makeWorkflow(source, { parameters: { statuses }, credentials: { apiKey: 'k', baseUrl: 'http://127.0.0.1:1' } });
		const own = workflow.nodes[node.name];
		expect(workflow.expression.getSimpleParameterValue(own, source.description.subtitle as string, 'internal', {})).toBe(expected);
	});

	it('version 1 keeps its parameters: the notice, Order Statuses, Pass Unknown Statuses, Options', () => {
		const v1 = source.description.properties.filter((p) => shownIn(p, 1));
		expect(v1.map((p) => `${p.name}:${p.type === 'notice' ? p.displayName.slice(0, 25) : p.displayName}`)).toEqual([
			'notice:Registers its own webhook',
			'statuses:Order Statuses',
			'passUnknownStatuses:Pass Unknown Statuses',
			'options:Options',
		]);
	});

	it('no parameter default is an expression (n8n would evaluate it)', () => {
		const walk = (ps: INodeProperties[]): unknown[] =>
			ps.flatMap((p) => [p.default, ...walk(((p.options ?? []) as INodeProperties[]).filter((o) => 'displayName' in o && 'type' in o))]);
		expect(walk(source.description.properties).filter((d) => typeof d === 'string' && d.startsWith('='))).toEqual([]);
	});
});

describe('webhook description: resolved by n8n without the expression engine', () => {
	const webhook = source.description.webhooks![0] as IWebhookDescription;

	it('every field is natively resolvable', () => {
		expect(webhookDescriptionIsNativelyResolvable(webhook)).toBe(true);
	});

	it.each([
		[1, undefined],
		[2, undefined],
		[2, 'whenReceived'],
		[2, 'whenFinished'],
		[1, 'whenFinished'],
	])('v%s, acknowledge %s: the resolver gives what the engine gives for the template', (typeVersion, acknowledge) => {
		const parameters = acknowledge ? { options: { acknowledge } } : {};
		const { workflow, node } = makeWorkflow(source, { parameters, credentials: { apiKey: 'k', baseUrl: 'http://127.0.0.1:1' }, typeVersion });
		// The workflow's own node carries the defaults n8n fills in, as in a real delivery.
		const own = workflow.nodes[node.name];
		for (const field of ['responseMode', 'responseData'] as const) {
			const native = resolveWebhookDescriptionField(own, webhook, field);
			const engine = workflow.expression.getSimpleParameterValue(own, webhook[field] as string, 'webhook', {}, undefined, undefined);
			expect(native).toEqual({ resolved: true, value: engine });
		}
		const mode = resolveWebhookDescriptionField(own, webhook, 'responseMode');
		expect(mode).toEqual({ resolved: true, value: acknowledge === 'whenFinished' ? 'lastNode' : 'onReceived' });
	});

	it('is left to the engine (the template, as in v1) when any parameter holds an expression', () => {
		const parameters = { statuses: '={{ ["FUNDED"] }}', options: { acknowledge: 'whenFinished' } };
		const { workflow, node } = makeWorkflow(source, { parameters, credentials: { apiKey: 'k', baseUrl: 'http://127.0.0.1:1' } });
		const own = workflow.nodes[node.name];
		expect(resolveWebhookDescriptionField(own, webhook, 'responseMode')).toEqual({ resolved: false });
		expect(workflow.expression.getSimpleParameterValue(own, webhook.responseMode as string, 'webhook', {})).toBe('lastNode');
	});
});

describe.each([
	['source', () => source],
	// The editor reads the built package: prove it there too (skipped only before the first build).
	// eslint-disable-next-line @typescript-eslint/no-require-imports -- the built file exists only after a build
	['built (dist/)', () => (existsSync(built) ? (new (require(built).ClearinghouseTrigger)() as INodeType) : undefined)],
])('Events (v2), %s', (_label, load) => {
	const node = load();
	const maybe = node ? it : it.skip;

	maybe('the nodes panel lists one entry per event, each preselecting its status', () => {
		const entries = nodesPanelEntries(node!);
		expect(entries).toHaveLength(PAYMENT_ORDER_STATUSES.length);
		const byEvent = Object.fromEntries(entries.map((e) => [e.event, e.values]));
		expect(byEvent['Order Funded']).toEqual({ statuses: ['FUNDED'] });
		expect(byEvent['Order Distributed']).toEqual({ statuses: ['DISTRIBUTED'] });
		expect(byEvent['Distribution Failed']).toEqual({ statuses: ['DISTRIBUTION_FAILED'] });
		expect(byEvent['Order Refunded']).toEqual({ statuses: ['REFUNDED'] });
		expect(entries.flatMap((e) => e.values.statuses as string[]).sort()).toEqual([...PAYMENT_ORDER_STATUSES].sort());
	});

	maybe('Events is a v2 parameter; the v2 notice speaks to the user, not of WEBHOOK_URL or 401', () => {
		const events = node!.description.properties.find((p) => p.displayName === 'Events')!;
		expect(events).toMatchObject({ name: 'statuses', type: 'multiOptions', default: [], displayOptions: { show: { '@version': [{ _cnd: { gte: 2 } }] } } });
		const notice = node!.description.properties.find((p) => p.type === 'notice' && shownIn(p, 2) && !shownIn(p, 1))!;
		expect(notice.displayName).toMatch(/Publish the workflow/);
		expect(notice.displayName).not.toMatch(/WEBHOOK_URL|401|https/);
	});
});

describe('output schema', () => {
	it('v2 and v3 ship the same item schema as v1 (the item did not change; test/e2e/examples.test.ts checks v1 against real items)', () => {
		const dir = join(__dirname, '..', '..', '..', 'nodes', 'ClearinghouseTrigger', '__schema__');
		const read = (v: string) => JSON.parse(readFileSync(join(dir, v, 'output.json'), 'utf8')) as unknown;
		expect(read('v2.0.0')).toEqual(read('v1.0.0'));
		expect(read('v3.0.0')).toEqual(read('v1.0.0'));
	});
});
