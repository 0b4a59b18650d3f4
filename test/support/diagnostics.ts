// Prints the node's log tail when a test fails, so that a red run explains itself.
import type { SuiteContext, TestContext } from 'node:test';
import type { NodeProcess } from './node-process.js';

const TAIL_CHARS = 20_000;

/** For afterEach: dump the last node output if the test that just ran failed. */
export function dumpLogsOnFailure(t: TestContext | SuiteContext, node: NodeProcess | undefined): void {
  // `passed` exists at runtime since Node 20.12 but is missing from @types/node 20's TestContext.
  if (!node || (t as { passed?: boolean }).passed !== false) return;
  process.stderr.write(`\n--- svc-node output (last ${TAIL_CHARS} chars) after failed test "${t.name}" ---\n`);
  process.stderr.write(node.logs().slice(-TAIL_CHARS) + '\n');
}
