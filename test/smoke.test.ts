import t from 'tap';
import { entityId } from '../engine/entity.js';
t.equal(entityId('OFAC', '306'), 'OFAC:306');
