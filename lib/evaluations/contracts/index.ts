import type { EndpointContract } from '#platform/http/contract.js';
import { EvaluationsCancel } from './evaluations-cancel.js';
import { EvaluationsComplete } from './evaluations-complete.js';
import { EvaluationsCreate } from './evaluations-create.js';
import { EvaluationsGet } from './evaluations-get.js';
import { EvaluationsList } from './evaluations-list.js';
import { EvaluationsRecordAttempt } from './evaluations-record-attempt.js';

export const EVALUATIONS_ENDPOINTS: readonly EndpointContract[] = [
  EvaluationsCreate,
  EvaluationsList,
  EvaluationsGet,
  EvaluationsRecordAttempt,
  EvaluationsComplete,
  EvaluationsCancel,
];
