import { Failure } from '#platform/failure.js';

/** A node's own failure (an http status, a timeout, a refused model call); any Failure fails a node the same way. */
export class NodeFailure extends Failure {}
