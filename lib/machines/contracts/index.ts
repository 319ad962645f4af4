import type { EndpointContract } from '#platform/http/contract.js';
import { MachinesCreate } from './machines-create.js';
import { MachinesDelete } from './machines-delete.js';
import { MachinesGet } from './machines-get.js';
import { MachinesList } from './machines-list.js';

export const MACHINES_ENDPOINTS: readonly EndpointContract[] = [MachinesCreate, MachinesList, MachinesGet, MachinesDelete];
