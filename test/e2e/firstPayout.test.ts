/**
 * Issue 38's measure: a person's first payout from a blank canvas, in a real browser (Debian's
 * chromium over the DevTools protocol), against what `npm start` sets up (the sandbox with its demo
 * data as shipped, a local n8n with the packed package and the sandbox credential, the only one of
 * its type, so n8n gives it to the new node). Only clicks, keys and typing:
 *   new workflow → Manual Trigger → Edit Fields (JSON: the contractor table, columns Name, Wallet, Chain,
 *   Stablecoin, Amount, Invoice, as the console lists alice's and bob's wallets) → Split Out → Payment
 *   Order → Create with Order Fields → Map Automatically and the sender once (Sender User ID for Rows
 *   Without One); Business Key Field stays at its default (reference), which keys a row without that column
 *   by its Invoice column. Execute step. Three orders, each keyed by its invoice.
 * The test counts what it used (clicks, typed entries, nodes-panel searches, fields set) and prints it,
 * to compare with the issue's "before" (6 required fields, ~25 clicks, 4 typed entries, 5 drags) and with
 * this test's own before the Invoice default (21 clicks, 4 typed entries: Business Key Field was typed).
 * Then the same workflow run again creates nothing new (three orders found), and a fourth row paying
 * carol (a user of the demo subaccount) is refused, no order for her, with the fix that works (followed
 * and paying in test/nodes/action/guarantees/serviceErrors.test.ts; following it in this panel is not automated yet).
 * Screenshots in .e2e/screenshots/ (git-ignored); FIRST_PAYOUT_PICTURE=<file> also saves the
 * finished canvas and panel (the README's picture, docs/first-payout.png).
 */
import { join } from 'node:path';

import type { Browser } from '../../harness/browser';
import { repoRoot } from '../../harness/runtime';
import type { N8nInstance } from '../../harness/n8nProcess';
import { sandboxCredential } from '../../harness/sandbox';
import { walletOf } from '../../harness/sandboxClient';
import { stopAll, type SandboxStage } from '../../harness/stage';
import { describeBrowser, SCREENSHOTS, startBrowserStage } from './support';

jest.setTimeout(600_000);

const js = (value: unknown) => JSON.stringify(value);

describeBrowser('a first payout from a blank canvas in a real browser', () => {
	let stage: SandboxStage;
	let n8n: N8nInstance;
	let browser: Browser;
	const shot = (name: string) => browser.screenshot(join(SCREENSHOTS, `first-payout-${name}.png`));

	beforeAll(async () => {
		({ stage, n8n, browser } = await startBrowserStage({ seed: 'demo' }, (n8n, stage) => n8n.importCredential(sandboxCredential(stage.sandbox))));
	});
	afterAll(async () => {
		// The page as the test left it (what a failure looked like).
		await browser?.screenshot(join(SCREENSHOTS, 'first-payout-last.png')).catch(() => undefined);
		await stopAll(browser, n8n, stage?.sandbox);
	});

	/** What the person did, counted as they act. */
	const used = { clicks: 0, typed: [] as string[], searches: [] as string[], keys: [] as string[], fields: [] as string[] };
	async function click(what: string, element: string) {
		used.clicks++;
		await browser.clickWhere(what, element, 60_000);
	}
	/** Clicks into a field, selects what it holds (Ctrl+A) and types (or pastes) the new value. */
	async function fill(field: string, element: string, text: string) {
		await click(`the ${field} field`, element);
		await browser.waitFor(
			`focus in ${field}`,
			`(() => { const el = ${element}; return el && (el === document.activeElement || el.contains(document.activeElement)); })()`,
			10_000,
		);
		used.keys.push('Ctrl+A');
		await browser.press('a', 2);
		used.typed.push(field);
		await browser.insertText(text);
	}
	/** Picks an option of an n8n dropdown parameter: the dropdown, then the option. */
	async function choose(parameter: string, option: string) {
		await click(`the ${parameter} dropdown`, `${param(parameter)}?.querySelector('.el-select__wrapper, .el-select, input')`);
		await click(
			`the option ${option}`,
			`[...document.querySelectorAll('.el-select-dropdown__item')].find((e) => e.offsetParent && e.textContent.trim().startsWith(${js(option)}))`,
		);
		used.fields.push(`${parameter} = ${option}`);
		await browser.waitFor(
			`${parameter} set to ${option}`,
			`${param(parameter)}?.querySelector('input')?.value === ${js(option)}`,
			30_000,
			`${param(parameter)}?.innerHTML.slice(0, 500)`,
		);
	}

	const param = (name: string) => `document.querySelector('[data-test-id="parameter-input-${name}"]')`;
	/** A resource locator's value input (From List: the field that opens the list). */
	const locatorInput = (name: string) =>
		`(() => { const e = ${param(name)}?.querySelector('[data-test-id="rlc-input"]'); return e?.matches('input, textarea') ? e : e?.querySelector('input, textarea'); })()`;
	/** Picks an entry of a resource locator's From List: the field (the list opens), then the entry named `name`. */
	async function pickFromList(parameter: string, name: string) {
		await click(`the ${parameter} list`, locatorInput(parameter));
		const item = `[...document.querySelectorAll('[data-test-id="rlc-item"]')].find((e) => e.offsetParent && e.textContent.trim().startsWith(${js(name)}))`;
		const items = `[...document.querySelectorAll('[data-test-id="rlc-item"], [data-test-id="rlc-error-container"]')].map((e) => e.textContent.trim().slice(0, 200))`;
		await browser.waitFor(`${name} in the ${parameter} list`, item, 60_000, items);
		await click(`the entry ${name}`, item);
		await browser.waitFor(`${parameter} set to ${name}`, `${locatorInput(parameter)}?.value === ${js(name)}`, 30_000, `${locatorInput(parameter)}?.value`);
	}
	const searchBar = `document.querySelector('[data-test-id="node-creator-search-bar"] input, input[data-test-id="node-creator-search-bar"]')`;
	const entry = (name: RegExp) =>
		`[...document.querySelectorAll('[data-test-id="item-iterator-item"]')].find((e) => ${name}.test(e.querySelector('[data-test-id="node-creator-item-name"]')?.textContent.trim() ?? e.textContent.trim()))`;
	const listed = `[...document.querySelectorAll('[data-test-id="item-iterator-item"]')].map((e) => e.textContent.trim().slice(0, 80))`;
	const nodeNames = `[...document.querySelectorAll('[data-test-id="canvas-node"]')].map((e) => e.dataset.nodeName)`;
	const ndvOpen = `!!document.querySelector('[data-test-id="ndv"]')?.getBoundingClientRect().width`;

	/** The nodes panel is open: search (typing where the focus is, a click first when it is elsewhere) and add an entry. */
	async function addFromPanel(text: string, name: RegExp) {
		await browser.waitFor('the nodes panel search bar', searchBar, 60_000);
		if (!(await browser.evaluate(`document.activeElement === ${searchBar}`))) await click('the nodes panel search bar', searchBar);
		used.searches.push(text);
		await browser.insertText(text);
		await browser.waitFor(`the entry ${name}`, entry(name), 60_000, listed);
		await click(`the entry ${name}`, entry(name));
	}
	/** The node added last: the name the canvas shows now that it did not show before. */
	async function added(before: string[]): Promise<string> {
		return await browser.waitFor<string>('the new node on the canvas', `${nodeNames}.find((n) => !${js(before)}.includes(n))`, 60_000, nodeNames);
	}
	const plusAfter = (node: string) =>
		`document.querySelector('[data-test-id="canvas-node-output-handle"][data-node-name=${js(node)}] [data-test-id="canvas-handle-plus"]')`;
	async function closePanel() {
		await click('the panel close button', `document.querySelector('[data-test-id="ndv-close-button"]')`);
		await browser.waitFor('the canvas again', `!(${ndvOpen})`, 30_000);
	}

	/** The output table's first column (created) per row. */
	const createdColumn = `(() => { const panel = document.querySelector('[data-test-id="ndv-output-panel"]') ?? document.querySelector('[data-test-id="output-panel"]');
		const head = [...panel.querySelectorAll('thead th')].map((th) => th.textContent.trim()); const at = head.indexOf('created');
		return [...panel.querySelectorAll('tbody tr')].map((r) => r.children[at]?.textContent.trim()); })()`;
	/** Opens a node's panel from the canvas (a double click). */
	async function openNode(name: string) {
		used.clicks += 2;
		await browser.clickWhere(`the ${name} node`, `document.querySelector('[data-test-id="canvas-node"][data-node-name=${js(name)}]')`, 60_000, 2);
		await browser.waitFor(`the ${name} panel`, ndvOpen, 30_000);
	}
	const outputShown = `(document.querySelector('[data-test-id="ndv-output-panel"]') ?? document.querySelector('[data-test-id="output-panel"]'))?.innerText`;

	test('Manual Trigger → Edit Fields → Split Out → Create: three orders; a re-run creates none; carol is refused with the fix that works', async () => {
		await browser.setUpOwner(n8n.baseUrl, 'First', 'First-payout-1');
		const state = await stage.operator.state();
		const user = (label: string) => state.users.find((u: any) => u.label === label);
		const [alice, bob, carol] = ['alice', 'bob', 'carol'].map(user);
		// The contractor table, with what the console lists for alice and bob (main account, "Pay them with"
		// the main key); alice also pays, so it is her ID that goes into the panel.
		const rows = [
			{ Name: 'Alice', Wallet: walletOf(alice, 'base'), Chain: 'base', Stablecoin: 'USDC', Amount: '120.00', Invoice: 'INV-2001' },
			{ Name: 'Bob', Wallet: walletOf(bob, 'ethereum'), Chain: 'ethereum', Stablecoin: 'USDC', Amount: '95.50', Invoice: 'INV-2002' },
			{ Name: 'Bob (Solana wallet)', Wallet: walletOf(bob, 'solana'), Chain: 'solana', Stablecoin: 'USDC', Amount: '40.25', Invoice: 'INV-2003' },
		];
		const started = Date.now();

		// 1. A new workflow (the overview's "Create workflow" button: counted as the one click it is).
		used.clicks++;
		await browser.goto(`${n8n.baseUrl}/workflow/new`);
		await click('the canvas add button', `document.querySelector('[data-test-id="canvas-add-button"]')`);
		await addFromPanel('manual', /^(Trigger manually|Manual Trigger)/i);
		const trigger = await added([]);
		// n8n opens no panel for the manual trigger; if it does, it is closed.
		if (await browser.evaluate(ndvOpen)) await closePanel();

		// 2. Edit Fields, JSON: the table pasted as one field "payees".
		await click('the + after the trigger', plusAfter(trigger));
		await addFromPanel('edit fields', /^Edit Fields/i);
		const editFields = await added([trigger]);
		await browser.waitFor('the Edit Fields panel', param('mode'), 60_000, `document.body.innerText.slice(0, 1500)`);
		await choose('mode', 'JSON');
		const jsonEditor = `${param('jsonOutput')}?.querySelector('.cm-content')`;
		await fill('JSON', jsonEditor, JSON.stringify({ payees: rows }, null, 1));
		await browser.waitFor('the table in the JSON field', `${jsonEditor}?.textContent.includes('INV-2003')`, 10_000, `${jsonEditor}?.textContent`);
		used.fields.push('JSON');
		await closePanel();

		// 3. Split Out: one item per row.
		await click('the + after Edit Fields', plusAfter(editFields));
		await addFromPanel('split out', /^Split Out/i);
		const splitOut = await added([trigger, editFields]);
		await fill('Fields To Split Out', `${param('fieldToSplitOut')}?.querySelector('input, textarea, .cm-content')`, 'payees');
		used.fields.push('Fields To Split Out');
		await closePanel();

		// 4. Clearinghouse → Create a payment order; the credential is the one there is.
		await click('the + after Split Out', plusAfter(splitOut));
		await addFromPanel('clearinghouse', /^Clearinghouse$/);
		await browser.waitFor('the Clearinghouse actions', entry(/^Create a payment order/), 60_000, listed);
		await click('the Create action', entry(/^Create a payment order/));
		const create = await added([trigger, editFields, splitOut]);
		await browser.waitFor('the Create panel', param('dataMode'), 60_000, `document.body.innerText.slice(0, 1500)`);
		await browser.waitFor(
			'the sandbox credential, given to the new node',
			`[...document.querySelectorAll('[data-test-id="node-credentials-select"] input')].some((i) => i.value === 'Clearinghouse sandbox')`,
			30_000,
			`document.querySelector('[data-test-id="node-credentials-select"]')?.outerHTML.slice(0, 800)`,
		);
		await choose('dataMode', 'Map Automatically');
		// The sender picked by its label from the list (From List, the field's default mode): the ID is saved.
		await pickFromList('senderForAllRows', `alice (${alice.id})`);
		used.fields.push('Sender User ID for Rows Without One');
		// Business Key Field stays at its default, reference: a row without that column is keyed by its Invoice.
		expect(await browser.evaluate(`${param('businessKeyField')}?.querySelector('input, textarea')?.value`)).toBe('reference');
		await shot('1-create-panel');

		// 5. Execute step: the three orders in the output panel.
		await click('Execute step', `document.querySelector('[data-test-id="ndv"] [data-test-id="node-execute-button"]')`);
		const threeItems = `(() => { const t = ${outputShown} ?? ''; return /\\b3 items\\b/.test(t) && t.includes('INV-2003'); })()`;
		await browser.waitFor('three orders in the output panel', threeItems, 180_000, outputShown);
		const seconds = Math.round((Date.now() - started) / 1000);
		expect(await browser.evaluate(createdColumn)).toEqual(['true', 'true', 'true']);
		await shot('2-three-orders');
		// The README's picture (docs/first-payout.png), taken again when asked.
		if (process.env.UPDATE_README_PICTURE === '1') {
			// Without n8n's "Node executed successfully" toast over the output.
			await browser.evaluate(`document.querySelectorAll('.el-notification').forEach((e) => e.remove())`);
			await browser.screenshot(join(repoRoot, 'docs', 'first-payout.png'), 0.75);
		}

		const orders = async () => (await stage.operator.call<{ orders: any[] }>('GET', 'overview')).orders;
		const first = await orders();
		expect(first.map((o) => o.memo).sort()).toEqual(['INV-2001', 'INV-2002', 'INV-2003']);
		expect(first.every((o) => o.status === 'AWAITING_FUNDS')).toBe(true);
		// Each order was sent keyed by its row's Invoice.
		expect((await stage.operator.paymentPosts(0)).map((r) => r.body.idempotencyKey).sort()).toEqual(['INV-2001', 'INV-2002', 'INV-2003']);

		const figures =
			`first payout from a blank canvas: ${used.clicks} clicks, ${used.typed.length} typed entries (${used.typed.join('; ')}), ` +
			`${used.searches.length} nodes-panel searches (${used.searches.join(', ')}), ${used.keys.length} key shortcuts (${used.keys.join(', ')}), 0 drags, ` +
			`${used.fields.length} fields set (${used.fields.join('; ')}), of which the Create node's: ${used.fields.filter((f) => /dataMode|Sender|Business/.test(f)).length}; ` +
			`${seconds} s of a script's time (nodes: ${[trigger, editFields, splitOut, create].join(' → ')})`;
		console.log(figures);
		// The "before": about 25 clicks, 4 typed entries, 5 drags, 6 required fields.
		expect(used.clicks).toBeLessThan(25);
		expect(used.typed.length).toBeLessThan(4);

		// 6. Run again: the three rows are sent again with their keys, and nothing new is made.
		// The output panel changes (created: true becomes false) once the run is done.
		const firstOutput = await browser.evaluate<string>(outputShown);
		await click('Execute step again', `document.querySelector('[data-test-id="ndv"] [data-test-id="node-execute-button"]')`);
		await browser.waitFor('the re-run in the output panel', `${threeItems} && ${outputShown} !== ${js(firstOutput)}`, 180_000, outputShown);
		expect(await browser.evaluate(createdColumn)).toEqual(['false', 'false', 'false']);
		expect((await orders()).map((o) => o.id).sort()).toEqual(first.map((o) => o.id).sort());
		await shot('3-rerun');

		// 7. Carol, a user of the demo subaccount, added as a fourth row: her order is refused, nothing new is
		// made, and the error says the fix that works (pay her from that subaccount).
		const carolRow = { Name: 'Carol', Wallet: walletOf(carol, 'base'), Chain: 'base', Stablecoin: 'USDC', Amount: '60.00', Invoice: 'INV-2004' };
		await closePanel();
		await openNode(editFields);
		await fill('JSON', jsonEditor, JSON.stringify({ payees: [...rows, carolRow] }, null, 1));
		await browser.waitFor('carol in the JSON field', `${jsonEditor}?.textContent.includes('INV-2004')`, 10_000, `${jsonEditor}?.textContent`);
		await closePanel();
		await openNode(create);
		await click('Execute step with carol', `document.querySelector('[data-test-id="ndv"] [data-test-id="node-execute-button"]')`);
		const ndvText = `document.querySelector('[data-test-id="ndv"]')?.innerText`;
		await browser.waitFor(
			'the refusal of carol, with the fix',
			`(() => { const t = ${ndvText} ?? ''; return t.includes('Row 4 of 4 (INV-2004)') && t.includes('Subaccount ID'); })()`,
			180_000,
			ndvText,
		);
		await shot('4-carol-refused');
		expect((await orders()).map((o) => o.id).sort()).toEqual(first.map((o) => o.id).sort());
		// Following that fix (Subaccount ID and a sender of it) pays her: test/nodes/action/guarantees/serviceErrors.test.ts.
	});
});
