import t from 'tap';
import fc from 'fast-check';
import { isDeepStrictEqual } from 'node:util';
import * as flatbuffers from 'flatbuffers';
import { decodeEntity, encodeEntity } from '../../engine/index/entity-record.js';
import {
  COUNTRY_KINDS,
  ENTITY_SCHEMAS,
  LIST_CODES,
  NAME_KINDS,
  PEP_CLASSES,
  type CanonicalEntity,
  type EntityIdentifier,
  type PepFacts,
  type PepPosition,
} from '../../engine/entity.js';

/** Any Unicode text (no lone surrogates: they have no UTF-8 form). */
const text = fc.string({ unit: 'binary', maxLength: 24 });
/** Optional fields are either absent or non-empty: an empty optional string reads back as absent. */
const someText = fc.string({ unit: 'binary', minLength: 1, maxLength: 24 });
const date = fc.constantFrom('1955', '1955-03', '1955-03-04', '1955/1957', '2024-02-29');

const position: fc.Arbitrary<PepPosition> = fc.record(
  {
    office: text,
    officeQid: text,
    countryIso: someText,
    role: fc.constantFrom('head_of_state', 'head_of_government', 'minister_or_official', 'legislator', 'international'),
    start: date,
    end: date,
  },
  { requiredKeys: ['office', 'officeQid', 'role'], noNullPrototype: true },
);

const pep: fc.Arbitrary<PepFacts> = fc.record(
  {
    pepClass: fc.constantFrom(...PEP_CLASSES),
    positions: fc.array(position, { maxLength: 4 }),
    relativeOf: fc.record({ qid: someText, name: text, relationship: text }, { noNullPrototype: true }),
    pepUntil: date,
  },
  { requiredKeys: ['pepClass', 'positions'], noNullPrototype: true },
);

const identifier: fc.Arbitrary<EntityIdentifier> = fc.record({ type: text, value: text, country: someText }, { requiredKeys: ['type', 'value'], noNullPrototype: true });

const entity: fc.Arbitrary<CanonicalEntity> = fc.record(
  {
    id: text,
    list: fc.constantFrom(...LIST_CODES),
    sourceId: text,
    schema: fc.constantFrom(...ENTITY_SCHEMAS),
    names: fc.array(fc.record({ full: text, kind: fc.constantFrom(...NAME_KINDS), script: fc.constantFrom('Latn', 'Cyrl', 'Arab', 'Hani', 'Grek') }, { noNullPrototype: true }), {
      maxLength: 6,
    }),
    birthDates: fc.array(date, { maxLength: 3 }),
    countries: fc.array(fc.record({ code: fc.constantFrom('RU', 'IR', 'KP', 'US', 'SY'), kind: fc.constantFrom(...COUNTRY_KINDS) }, { noNullPrototype: true }), { maxLength: 4 }),
    deceased: fc.boolean(),
    programs: fc.array(text, { maxLength: 4 }),
    listedOn: date,
    identifiers: fc.array(identifier, { maxLength: 3 }),
    gender: fc.constantFrom('male' as const, 'female' as const),
    pep,
  },
  {
    requiredKeys: ['id', 'list', 'sourceId', 'schema', 'names', 'birthDates', 'countries', 'deceased', 'programs', 'identifiers'],
    noNullPrototype: true,
  },
);

t.test('encode/decode round trip of arbitrary entities', async (t) => {
  fc.assert(
    fc.property(entity, (e) => isDeepStrictEqual(decodeEntity(encodeEntity(e)), e)),
    { numRuns: 300 },
  );
  t.pass();
});

t.test('a string that starts with U+FEFF reads back with it (found by the round-trip property)', async (t) => {
  const e: CanonicalEntity = { id: '\uFEFFEU:1', list: 'EU', sourceId: '\uFEFF', schema: 'person', names: [{ full: '\uFEFFAnna', kind: 'primary', script: 'Latn' }], birthDates: [], countries: [], deceased: false, programs: [], identifiers: [] };
  t.same(decodeEntity(encodeEntity(e)), e);
  t.equal(decodeEntity(encodeEntity(e)).sourceId, '\uFEFF');
});

t.test('a reused builder writes the same bytes as a fresh one', async (t) => {
  const builder = new flatbuffers.Builder(16);
  fc.assert(
    fc.property(fc.array(entity, { minLength: 1, maxLength: 4 }), (es) => {
      for (const e of es) {
        const reused = encodeEntity(e, builder);
        const fresh = encodeEntity(e);
        if (Buffer.compare(Buffer.from(reused), Buffer.from(fresh)) !== 0) return false;
        // The returned bytes are a copy: later encodes through the builder do not change them.
        const before = Buffer.from(reused);
        encodeEntity(es[0]!, builder);
        if (Buffer.compare(before, Buffer.from(reused)) !== 0) return false;
      }
      return true;
    }),
    { numRuns: 100 },
  );
  t.pass();
});

t.test('a listed entity, a PEP with every optional field, and an empty entity', async (t) => {
  const listed: CanonicalEntity = {
    id: 'OFAC:2676',
    list: 'OFAC',
    sourceId: '2676',
    schema: 'person',
    names: [
      { full: 'Ayman AL-ZAWAHIRI', kind: 'primary', script: 'Latn' },
      { full: 'أيمن الظواهري', kind: 'alias', script: 'Arab' },
      { full: 'The Doctor', kind: 'weak_alias', script: 'Latn' },
    ],
    birthDates: ['1951-06-19'],
    countries: [{ code: 'EG', kind: 'nationality' }],
    deceased: true,
    programs: ['SDGT'],
    listedOn: '2001-10-12',
    identifiers: [{ type: 'passport', value: '1084010', country: 'EG' }, { type: 'national_id', value: '' }],
    gender: 'male',
  };
  t.strictSame(decodeEntity(encodeEntity(listed)), listed);
  const pepEntity: CanonicalEntity = {
    id: 'KNOWLEDGEBASE:Q7747',
    list: 'KNOWLEDGEBASE',
    sourceId: 'Q7747',
    schema: 'person',
    names: [{ full: 'Владимир Путин', kind: 'primary', script: 'Cyrl' }],
    birthDates: ['1952-10-07'],
    countries: [{ code: 'RU', kind: 'jurisdiction' }],
    deceased: false,
    programs: [],
    identifiers: [],
    pep: {
      pepClass: 'PEP4',
      positions: [{ office: 'President of Russia', officeQid: 'Q218295', countryIso: 'RU', role: 'head_of_state', start: '2012-05-07' }],
      relativeOf: { qid: 'Q1', name: '', relationship: 'spouse' },
      pepUntil: '2030-01-01',
    },
  };
  t.strictSame(decodeEntity(encodeEntity(pepEntity)), pepEntity);
  const empty: CanonicalEntity = {
    id: '',
    list: 'UN',
    sourceId: '',
    schema: 'vessel',
    names: [],
    birthDates: [],
    countries: [],
    deceased: false,
    programs: [],
    identifiers: [],
  };
  t.strictSame(decodeEntity(encodeEntity(empty)), empty);
});

t.test('surprising: an empty optional string reads back as absent', async (t) => {
  const e: CanonicalEntity = {
    id: 'x',
    list: 'UK',
    sourceId: 'x',
    schema: 'organization',
    names: [],
    birthDates: [],
    countries: [],
    deceased: false,
    programs: [],
    listedOn: '',
    identifiers: [{ type: 't', value: 'v', country: '' }],
  };
  const back = decodeEntity(encodeEntity(e));
  t.equal(back.listedOn, undefined);
  t.equal(back.identifiers[0]!.country, undefined);
});
