// Validators on a local CometBFT network, seen from outside: a staking transaction sent from a dev
// wallet (registerValidator with a node's consensus key, undelegate ...), CometBFT's own validator
// set (/validators) and the validators whose precommits a commit carries (/commit).
import assert from 'node:assert/strict';
import { parseAbi } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { devAccounts } from '../../src/chain/dev-accounts.js';
import { consensusAddress } from '../../src/consensus/cometbft/home.js';
import { system } from '../../src/params.js';
import { rpc, waitFor } from './json-rpc.js';

const GWEI = 10n ** 9n;
export const TOKEN = 10n ** 18n;
export const STAKING = parseAbi([
  'function registerValidator(string moniker, uint16 commissionBps, uint16 maxCommissionBps, uint16 maxChangeBpsPerDay, bytes32 consensusKey) payable',
  'function undelegate(address validator, uint256 amount)',
]);

/**
 * Sends `data` (with `value`) from dev account `from` to the staking module and waits for its
 * successful receipt: the nonce read from the first node, the transaction sent to the second, the
 * receipt read from the third (gossip between nodes is part of what it checks). Returns the receipt.
 */
export async function sendStaking(nodeUrls: readonly string[], from: number, data: `0x${string}`, value: bigint): Promise<{ status: string; blockNumber: string; transactionHash: string }> {
  const [nonceAt, sendTo, receiptAt] = [nodeUrls[0]!, nodeUrls[1 % nodeUrls.length]!, nodeUrls[2 % nodeUrls.length]!];
  const account = privateKeyToAccount(devAccounts()[from]!.privateKey);
  const nonce = Number(await rpc<string>(nonceAt, 'eth_getTransactionCount', [account.address, 'pending']));
  const raw = await account.signTransaction({ chainId: 9000, type: 'eip1559', nonce, to: system.stakingAddress as `0x${string}`, data, value, gas: 500_000n, maxFeePerGas: 100n * GWEI, maxPriorityFeePerGas: GWEI });
  const hash = await rpc<string>(sendTo, 'eth_sendRawTransaction', [raw]);
  const receipt = await waitFor(`receipt ${hash}`, async () => (await rpc<{ status: string; blockNumber: string; transactionHash: string } | null>(receiptAt, 'eth_getTransactionReceipt', [hash])) ?? undefined, 30_000);
  assert.equal(receipt.status, '0x1');
  return receipt;
}

/** Consensus public keys (hex) of CometBFT's validator set at `height` (the latest by default), as a node's CometBFT reports it. */
export async function cometValidators(cometRpc: string, height?: number): Promise<string[]> {
  const res = (await (await fetch(`${cometRpc}/validators?per_page=100${height === undefined ? '' : `&height=${height}`}`)).json()) as {
    result: { validators: { pub_key: { value: string } }[] };
  };
  return res.result.validators.map((v) => Buffer.from(v.pub_key.value, 'base64').toString('hex'));
}

/** CometBFT's validator address (upper-case hex, as /commit lists it) of a consensus key (0x hex). */
export function cometAddress(consensusKey: string): string {
  return consensusAddress(Buffer.from(consensusKey.replace(/^0x/, ''), 'hex')).toString('hex').toUpperCase();
}

/** The validators (CometBFT addresses) whose precommit for the block the commit of `height` carries (BlockIDFlagCommit), as `cometRpc` has it; undefined before it exists. */
export async function commitSigners(cometRpc: string, height: number): Promise<string[] | undefined> {
  const body = (await (await fetch(`${cometRpc}/commit?height=${height}`)).json()) as {
    result?: { signed_header: { commit: { signatures: { block_id_flag: number; validator_address: string }[] } } };
  };
  // block_id_flag 2: BLOCK_ID_FLAG_COMMIT, a precommit for the block.
  return body.result?.signed_header.commit.signatures.filter((s) => s.block_id_flag === 2).map((s) => s.validator_address.toUpperCase());
}
