/**
 * What a person sees of the package in n8n's nodes panel and in a new node's panel, in a real browser
 * (Debian's chromium over the DevTools protocol), in one n8n with the packed package and one
 * credential whose API key the sandbox refuses (a person's first mistake):
 *  - searching "Clearinghouse" (first step) and "refund" (next step) lists the package's one entry (n8n
 *    merges the trigger and the action node) with a description that fits both;
 *  - the trigger added from its "On order funded" entry passes only that event (Pass Unknown Statuses
 *    off) and its canvas subtitle names the event;
 *  - Payment Order → Create marks Sender User ID, Recipient Address and Amount (USD) as required, the
 *    way n8n 2.40.7 marks a node's required fields (an issue mark once the field was left empty);
 *  - the Chain dropdown, whose list the refused key cannot load, says so, and once the node is run (Execute
 *    step) its issue mark's tooltip says why: the refused key, the Base URL, the credential, what to do (a
 *    list that loaded before n8n gave the new node its credential says that and to reopen the node, which the
 *    test then does, as a person would).
 * Screenshots are kept in .e2e/screenshots/ (git-ignored).
 */
import { join } from 'node:path';

import type { Browser } from '../../harness/browser';
import type { N8nInstance } from '../../harness/n8nProcess';
import { sandboxCredential } from '../../harness/sandbox';
import { stopAll, type SandboxStage } from '../../harness/stage';
import { editorPerson, entry, param, type EditorPerson } from './editor';
import { describeBrowser, SCREENSHOTS, startBrowserStage } from './support';

jest.setTimeout(300_000);

const js = (value: unknown) => JSON.stringify(value);

const WRONG_KEY = 'sk_not_this_accounts_key';
/** n8n lists the trigger and the action node as one entry, described by the trigger's description. */
const PANEL_DESCRIPTION = 'Pay, refund and look up stablecoin payment orders, and start workflows on their signed events';

describeBrowser('the nodes panel and a new node in a real browser', () => {
	let stage: SandboxStage;
	let n8n: N8nInstance;
	let browser: Browser;
	// What the person clicks is counted, and not read here.
	let person: EditorPerson;
	const shot = (name: string) => browser.screenshot(join(SCREENSHOTS, `nodes-panel-${name}.png`));

	beforeAll(async () => {
		// The only credential of its type, so n8n gives it to every new Clearinghouse node.
		({ stage, n8n, browser } = await startBrowserStage({}, (n8n, stage) =>
			n8n.importCredential({
				...sandboxCredential(stage.sandbox, 'chWrongKeyCred01', 'Clearinghouse (wrong key)'),
				data: { ...sandboxCredential(stage.sandbox).data, apiKey: WRONG_KEY },
			}),
		));
		person = editorPerson(browser, n8n);
	});
	afterAll(() => stopAll(browser, n8n, stage?.sandbox));

	/** The entries the nodes panel lists now: name and description as shown. */
	const listed = `[...document.querySelectorAll('[data-test-id="item-iterator-item"]')].map((e) => ({
		name: e.querySelector('[data-test-id="node-creator-item-name"]')?.textContent.trim() ?? e.textContent.trim(),
		description: e.querySelector('[data-test-id="node-creator-item-description"]')?.textContent.trim() ?? '' }))`;
	/** A field's issue mark in the open panel. */
	const issueOf = (name: string) => `${param(name)}?.closest('[data-test-id="parameter-item"]')?.querySelector('[data-test-id="parameter-issues"]')`;

	test('search, add the trigger from "On order funded", add Create: texts, defaults and required marks', async () => {
		// The owner account, as on a first visit.
		await browser.setUpOwner(n8n.baseUrl, 'Panel', 'Panel-owner-1');

		// 1. A new workflow; the first step's panel lists triggers.
		await browser.goto(`${n8n.baseUrl}/workflow/new`);
		await browser.click('[data-test-id="canvas-add-button"]', 120_000);
		// Among triggers n8n names the trigger without its " Trigger".
		await person.search('Clearinghouse');
		await browser.waitFor('the Clearinghouse trigger entry', entry('Clearinghouse'), 60_000, listed);
		const triggers = await browser.evaluate<Array<{ name: string; description: string }>>(listed);
		expect(triggers).toContainEqual({ name: 'Clearinghouse', description: PANEL_DESCRIPTION });
		await shot('1-search-clearinghouse');

		// 2. Its per-event entries; "On order funded" adds the trigger with that event only.
		await browser.clickWhere('the Clearinghouse trigger entry', entry('Clearinghouse'));
		await browser.waitFor('the "On order funded" entry', entry(/^\s*On order funded/i), 60_000, listed);
		await shot('2-trigger-events');
		await browser.clickWhere('the "On order funded" entry', entry(/^\s*On order funded/i));
		await browser.waitFor('the trigger panel', `${param('passUnknownStatuses')}`, 60_000, `document.body.innerText.slice(0, 2000)`);
		expect(await browser.evaluate(`${param('statuses')}.innerText`)).toContain('Order Funded');
		const unknownSwitch = `${param('passUnknownStatuses')}.querySelector('.el-switch')`;
		expect(await browser.evaluate(`!!${unknownSwitch}`)).toBe(true);
		expect(await browser.evaluate(`${unknownSwitch}.classList.contains('is-checked')`)).toBe(false);
		await shot('3-trigger-panel');
		await person.closePanel();
		const triggerNode = `document.querySelector('[data-test-id="canvas-node"][data-node-name^="Clearinghouse Trigger"]')`;
		await browser.waitFor(
			'the trigger on the canvas with its subtitle',
			`${triggerNode}?.innerText.includes('Order Funded')`,
			30_000,
			`${triggerNode}?.innerText`,
		);

		// 3. "refund" finds the same entry, with its actions.
		await browser.click('[data-test-id="node-creator-plus-button"]');
		await person.search('refund');
		await browser.waitFor('the Clearinghouse entry for "refund"', entry('Clearinghouse'), 60_000, listed);
		expect(await browser.evaluate(listed)).toContainEqual({ name: 'Clearinghouse', description: PANEL_DESCRIPTION });
		await shot('4-search-refund');
		await browser.clickWhere('the Clearinghouse entry', entry('Clearinghouse'));
		await browser.waitFor(
			'the actions of the Clearinghouse node',
			`${entry(/payment order/i)} || document.querySelector('[data-test-id="actions-panel-no-matching-actions"]')`,
			60_000,
			listed,
		);
		// Every action of the node is listed, the two steps of a refund among them.
		const refundActions = (await browser.evaluate<Array<{ name: string }>>(listed)).map((a) => a.name);
		expect(refundActions).toEqual(expect.arrayContaining(['Set return details of a payment order', 'Cancel a payment order', 'Create a payment order']));
		await shot('5-refund-actions');

		// 4. Payment Order → Create. n8n 2.40.7 draws no asterisk for a node's required parameters (only
		// for credentials) and keeps the issues of a new node hidden until a field is left or the node
		// runs: the marks a person meets are the issue marks of the fields they leave empty.
		await browser.clickWhere('the Create action', entry('Create a payment order'));
		await browser.waitFor('the Create panel', param('fromUserId'), 60_000, `document.body.innerText.slice(0, 2000)`);
		// Sender User ID (fromUserId) is a resource locator: n8n 2.40.7 marks it only after a run (the next test),
		// not when it is left (a click opens its list, and leaving the list is no blur of the field).
		const required = ['toAddress', 'amountUsd'];
		// A new node: no mark yet (n8n hides its issues until a field is left).
		for (const name of [...required, 'fromUserId']) expect(await browser.evaluate(`!!${issueOf(name)}`)).toBe(false);
		for (const name of required) {
			await browser.click(`[data-test-id="parameter-input-${name}"] input`);
			await browser.evaluate(`document.activeElement.blur()`);
		}
		for (const name of required)
			await browser.waitFor(`the issue mark of ${name}`, issueOf(name), 30_000, `${param(name)}?.closest('[data-test-id="parameter-item"]')?.innerText`);
		await shot('6-create-panel');
	});

	// n8n 2.40.7 disables a dropdown whose list failed to load (so opening and leaving it marks nothing) and
	// keeps a new node's issue marks hidden until the node is run: Execute step shows them, the Chain's with
	// the reason the node's loader gave. Runs after the test above (the Create panel is open).
	test('the issue tooltips: "Parameter … is required." and the reason the Chain list gives for a refused key', async () => {
		// Before any run: the dropdown says that its options failed to load.
		await browser.waitFor(
			'the Chain dropdown to say its list failed',
			`[...${param('toChain')}.querySelectorAll('input')].some((i) => (i.placeholder + i.value).includes('Error fetching options from Clearinghouse'))`,
			60_000,
			`${param('toChain')}?.outerHTML.slice(0, 1500)`,
		);
		await person.executeStep();
		await browser.waitFor(
			'the issue mark of toChain',
			issueOf('toChain'),
			60_000,
			`${param('toChain')}?.closest('[data-test-id="parameter-item"]')?.innerText`,
		);

		/** The text of the tooltip a field's issue mark opened (reka's trigger names its content), else of the one tooltip open. */
		const tooltipOf = (name: string) => `(() => { const id = ${issueOf(name)}?.querySelector('[aria-describedby]')?.getAttribute('aria-describedby');
			const own = id ? document.getElementById(id)?.closest('[data-test-id="tooltip-content"]') : null;
			const open = [...document.querySelectorAll('[data-test-id="tooltip-content"]')];
			return (own ?? (open.length === 1 ? open[0] : null))?.innerText ?? ''; })()`;
		/** Hovers a field's issue mark (its icon, in view) and returns the tooltip n8n shows for it once it holds one of `expected`. */
		async function issueTooltip(name: string, ...expected: string[]): Promise<string> {
			const icon = `(${issueOf(name)}?.querySelector('svg, .n8n-icon') ?? ${issueOf(name)})`;
			const at = await browser.evaluate<{ x: number; y: number }>(
				`(() => { const el = ${icon}; el.scrollIntoView({ block: 'center' }); const r = el.getBoundingClientRect(); return { x: Math.round(r.left + r.width / 2), y: Math.round(r.top + r.height / 2) }; })()`,
			);
			await browser.send('Input.dispatchMouseEvent', { type: 'mouseMoved', x: 5, y: 5 });
			await browser.send('Input.dispatchMouseEvent', { type: 'mouseMoved', x: at.x - 1, y: at.y });
			await browser.send('Input.dispatchMouseEvent', { type: 'mouseMoved', x: at.x, y: at.y });
			return await browser
				.waitFor<string>(
					`the tooltip of ${name}'s issue`,
					`(() => { const t = ${tooltipOf(name)}; return ${js(expected)}.some((e) => t.includes(e)) && t; })()`,
					30_000,
					tooltipOf(name),
				)
				.catch(async (error: Error) => {
					await shot(`7-no-tooltip-${name}`);
					const seen =
						await browser.evaluate(`({ at: ${js(at)}, under: document.elementFromPoint(${at.x}, ${at.y})?.outerHTML.slice(0, 400), mark: ${issueOf(name)}?.outerHTML.slice(0, 800),
						tooltips: [...document.querySelectorAll('[data-test-id="tooltip-content"]')].map((e) => e.innerText) })`);
					throw new Error(`${error.message}; ${JSON.stringify(seen)}`);
				});
		}
		for (const [name, label] of [
			['fromUserId', 'Sender User ID'],
			['toAddress', 'Recipient Address'],
			['amountUsd', 'Amount (USD)'],
		])
			expect(await issueTooltip(name, `Parameter "${label}" is required.`)).toContain(`Parameter "${label}" is required.`);

		// Why the Chain and Asset lists failed. n8n 2.40.7 loads a new node's lists as its panel opens, beside giving
		// it the only credential of its type, and does not load them again when the credential arrives mid-load:
		// on a busy machine a list may have loaded without it, and then says so and what to do (reopen the node).
		const REFUSED = 'did not accept the API Key';
		const EARLY = 'loaded while the node had no Clearinghouse credential';
		const reasons = async () => [await issueTooltip('toChain', REFUSED, EARLY), await issueTooltip('asset', REFUSED, EARLY)];
		let [chain, asset] = await reasons();
		const early = [chain, asset].some((t) => t.includes(EARLY));
		if (early) {
			for (const t of [chain, asset].filter((t) => t.includes(EARLY))) expect(t).toContain('if one is already shown there, close this node and open it again');
			await shot('7-lists-loaded-early');
			// Following it: close the node, open it again (a double click on the canvas), run it to show the marks.
			await person.closePanel();
			await browser.clickWhere(
				'the Create node',
				`[...document.querySelectorAll('[data-test-id="canvas-node"]')].find((e) => !e.dataset.nodeName.startsWith('Clearinghouse Trigger'))`,
				60_000,
				2,
			);
			await browser.waitFor('the Create panel again', param('toChain'), 60_000);
			await person.executeStep();
			await browser.waitFor('the issue mark of toChain again', `${issueOf('toChain')} && ${issueOf('asset')}`, 60_000);
			[chain, asset] = await reasons();
		}
		console.log(
			`nodes panel: the Chain and Asset lists loaded ${early ? 'before the node had its credential; reopened as their message says' : 'with the credential'}`,
		);
		expect(chain).toContain(
			`The Clearinghouse API at ${stage.sandbox.mainUrl.replace(/\/+$/, '')} did not accept the API Key of the credential "Clearinghouse (wrong key)" (401)`,
		);
		expect(chain).toContain("Open the credential, paste this account's API key");
		// The Asset list, loaded from the same answer, says the same.
		expect(asset).toContain(`${REFUSED} of the credential "Clearinghouse (wrong key)" (401)`);
		for (const t of [chain, asset]) expect(t).not.toContain(WRONG_KEY);
		await shot('7-chain-error');
	});
});
