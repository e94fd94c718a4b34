/**
 * The trigger's description as n8n reads it: its one version, the native resolvers of the webhook
 * description (n8n 2.40 then evaluates nothing per delivery for the acknowledgement), and the
 * Events filter that the editor's nodes panel turns into one trigger entry per event. The editor
 * reads the built package, so the last block loads dist/ when it exists (`npm run build`).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import type { INodeProperties, INodeType, IWebhookDescription } from 'n8n-workflow';
import { resolveWebhookDescriptionField, webhookDescriptionIsNativelyResolvable } from 'n8n-workflow';

import { ClearinghouseTrigger } from '../../../nodes/ClearinghouseTrigger/ClearinghouseTrigger.node';
import { PAYMENT_ORDER_STATUSES } from '../../../nodes/shared/paymentOrderStatus';
import { makeWorkflow } from '../../../harness/n8nContexts';

const source = new ClearinghouseTrigger();
const built = join(__dirname, '..', '..', '..', 'dist', 'nodes', 'ClearinghouseTrigger', 'ClearinghouseTrigger.node.js');

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
	it('declares one version, 2 (n8n evaluates an expression on every delivery to a version 1 trigger), and no version condition', () => {
		expect(source.description.version).toBe(2);
		expect(source.description.defaultVersion).toBeUndefined();
		expect(JSON.stringify(source.description.properties)).not.toContain('@version');
	});

	it('Pass Unknown Statuses defaults to off', () => {
		const shown = source.description.properties.filter((p) => p.name === 'passUnknownStatuses');
		expect(shown).toHaveLength(1);
		expect(shown[0].default).toBe(false);
		// What n8n fills in for a node saved without the value (as n8n saves a default).
		const { workflow, node } = makeWorkflow(source, { parameters: {}, credentials: { apiKey: 'k', baseUrl: 'http://127.0.0.1:1' } });
		expect(workflow.nodes[node.name].parameters.passUnknownStatuses).toBe(false);
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

	it('the panel: the notice, Events, Pass Unknown Statuses, Options', () => {
		expect(source.description.properties.map((p) => `${p.name}:${p.type === 'notice' ? p.displayName.slice(0, 25) : p.displayName}`)).toEqual([
			'notice:Publish the workflow and ',
			'statuses:Events',
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

	it.each([undefined, 'whenReceived', 'whenFinished'])('acknowledge %s: the resolver gives what the engine gives for the template', (acknowledge) => {
		const parameters = acknowledge ? { options: { acknowledge } } : {};
		const { workflow, node } = makeWorkflow(source, { parameters, credentials: { apiKey: 'k', baseUrl: 'http://127.0.0.1:1' } });
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

	it('is left to the engine (the template) when any parameter holds an expression', () => {
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
])('Events, %s', (_label, load) => {
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

	maybe('Events is the status filter; the notice speaks to the user, not of WEBHOOK_URL or 401', () => {
		const events = node!.description.properties.find((p) => p.displayName === 'Events')!;
		expect(events).toMatchObject({ name: 'statuses', type: 'multiOptions', default: [] });
		expect(events.displayOptions).toBeUndefined();
		const notice = node!.description.properties.find((p) => p.type === 'notice')!;
		expect(notice.displayName).toMatch(/Publish the workflow/);
		expect(notice.displayName).not.toMatch(/WEBHOOK_URL|401|https/);
	});
});

describe('output schema', () => {
	it('one item schema, for the one version (test/e2e/examples.test.ts checks it against real items)', () => {
		const dir = join(__dirname, '..', '..', '..', 'nodes', 'ClearinghouseTrigger', '__schema__');
		expect(readdirSync(dir)).toEqual([`v${String(source.description.version)}.0.0`]);
		expect(JSON.parse(readFileSync(join(dir, readdirSync(dir)[0], 'output.json'), 'utf8'))).toMatchObject({ type: 'object', version: 1 });
	});
});
