// web3 namespace: client version and keccak-256.
import { packageVersion } from '../version.js';
import { core } from '../native/index.js';
import { CLIENT_NAME } from '../params.js';
import { toData } from './hex.js';
import { method, required, type MethodTable } from './method.js';
import { parseBytes } from './validate.js';

/** geth's shape: name/version/os-arch/runtime, e.g. "svc-node/v0.1.0/linux-x64/node20.20.2". */
export const clientVersion = `${CLIENT_NAME}/v${packageVersion()}/${process.platform}-${process.arch}/node${process.versions.node}`;

export const web3Methods: MethodTable = {
  web3_clientVersion: method([], () => clientVersion),

  web3_sha3: method([required(parseBytes)], (_ctx, [data]) => toData(core.keccak256(data))),
};
