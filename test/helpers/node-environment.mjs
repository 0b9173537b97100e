// @ts-check
import vm from 'node:vm';
import { TestEnvironment } from 'jest-environment-node';

/**
 * Jest's node environment in a vanilla V8 context (`vm.constants.DONT_CONTEXTIFY`, Node 20.18+,
 * 22.8+) instead of a contextified one.
 *
 * A contextified context's global object has interceptors, so every global lookup in a test and
 * in the code it runs (`Math`, `Date`, `JSON`, `Buffer`, `process`, ...) is a call into C++ that
 * V8 cannot cache: `Math.imul` in a loop costs ~100 times what it does outside Jest (2e7 calls:
 * 3.3-3.8 CPU-s against 0.03). A vanilla context's global is an ordinary object. Jest only adds
 * properties to the global and runs its module wrappers in the context, which both kinds allow.
 */
export default class NodeEnvironment extends TestEnvironment {
  /** @param {ConstructorParameters<typeof TestEnvironment>} args */
  constructor(...args) {
    const createContext = vm.createContext;
    const vanilla = vm.constants?.DONT_CONTEXTIFY;
    // jest-environment-node calls vm.createContext() with no sandbox in its constructor.
    if (vanilla) vm.createContext = (sandbox, options) => createContext(sandbox ?? vanilla, options);
    try {
      super(...args);
    } finally {
      vm.createContext = createContext;
    }
  }
}
