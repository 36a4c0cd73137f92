/**
 * Canonical entity <-> FlatBuffers record (schema: entity.fbs). The builder encodes; workers decode
 * only the entities that end up in a result, reading the record in place.
 */
import * as flatbuffers from 'flatbuffers';
import { Entity } from './fbs/aml/index/entity.js';
import { Name } from './fbs/aml/index/name.js';
import { Country } from './fbs/aml/index/country.js';
import { Identifier } from './fbs/aml/index/identifier.js';
import { Pep } from './fbs/aml/index/pep.js';
import { Position } from './fbs/aml/index/position.js';
import {
  NAME_KINDS,
  type CanonicalEntity,
  type CountryKind,
  type EntityName,
  type EntitySchema,
  type ListCode,
  type PepClass,
  type PepFacts,
  type PepPosition,
} from '../entity.js';

function str(b: flatbuffers.Builder, s: string | undefined): number {
  return s === undefined ? 0 : b.createString(s);
}

function strings(b: flatbuffers.Builder, values: readonly string[], create: (b: flatbuffers.Builder, data: number[]) => number): number {
  return create(
    b,
    values.map((v) => b.createString(v)),
  );
}

function encodePep(b: flatbuffers.Builder, pep: PepFacts): number {
  const positions = pep.positions.map((p) => {
    const office = str(b, p.office);
    const qid = str(b, p.officeQid);
    const iso = str(b, p.countryIso);
    const role = str(b, p.role);
    const start = str(b, p.start);
    const end = str(b, p.end);
    Position.startPosition(b);
    Position.addOffice(b, office);
    Position.addOfficeQid(b, qid);
    if (iso) Position.addCountryIso(b, iso);
    Position.addRole(b, role);
    if (start) Position.addStart(b, start);
    if (end) Position.addEnd(b, end);
    return Position.endPosition(b);
  });
  const positionsVec = Pep.createPositionsVector(b, positions);
  const cls = str(b, pep.pepClass);
  const relQid = str(b, pep.relativeOf?.qid);
  const relName = str(b, pep.relativeOf?.name);
  const relationship = str(b, pep.relativeOf?.relationship);
  const until = str(b, pep.pepUntil);
  Pep.startPep(b);
  Pep.addPepClass(b, cls);
  Pep.addPositions(b, positionsVec);
  if (relQid) Pep.addRelativeQid(b, relQid);
  if (relName) Pep.addRelativeName(b, relName);
  if (relationship) Pep.addRelationship(b, relationship);
  if (until) Pep.addPepUntil(b, until);
  return Pep.endPep(b);
}

export function encodeEntity(e: CanonicalEntity, builder?: flatbuffers.Builder): Uint8Array {
  const b = builder ?? new flatbuffers.Builder(1024);
  b.clear();
  const names = e.names.map((n) => {
    const full = b.createString(n.full);
    const script = b.createString(n.script);
    Name.startName(b);
    Name.addFull(b, full);
    Name.addKind(b, NAME_KINDS.indexOf(n.kind));
    Name.addScript(b, script);
    return Name.endName(b);
  });
  const countries = e.countries.map((c) => {
    const code = b.createString(c.code);
    const kind = b.createString(c.kind);
    Country.startCountry(b);
    Country.addCode(b, code);
    Country.addKind(b, kind);
    return Country.endCountry(b);
  });
  const identifiers = e.identifiers.map((i) => {
    const type = b.createString(i.type);
    const value = b.createString(i.value);
    const country = str(b, i.country);
    Identifier.startIdentifier(b);
    Identifier.addType(b, type);
    Identifier.addValue(b, value);
    if (country) Identifier.addCountry(b, country);
    return Identifier.endIdentifier(b);
  });
  const id = b.createString(e.id);
  const list = b.createString(e.list);
  const sourceId = b.createString(e.sourceId);
  const schema = b.createString(e.schema);
  const namesVec = Entity.createNamesVector(b, names);
  const dobVec = strings(b, e.birthDates, Entity.createBirthDatesVector);
  const countriesVec = Entity.createCountriesVector(b, countries);
  const programsVec = strings(b, e.programs, Entity.createProgramsVector);
  const listedOn = str(b, e.listedOn);
  const identifiersVec = Entity.createIdentifiersVector(b, identifiers);
  const gender = str(b, e.gender);
  const pep = e.pep ? encodePep(b, e.pep) : 0;
  Entity.startEntity(b);
  Entity.addId(b, id);
  Entity.addList(b, list);
  Entity.addSourceId(b, sourceId);
  Entity.addSchema(b, schema);
  Entity.addNames(b, namesVec);
  Entity.addBirthDates(b, dobVec);
  Entity.addCountries(b, countriesVec);
  Entity.addDeceased(b, e.deceased);
  Entity.addPrograms(b, programsVec);
  if (listedOn) Entity.addListedOn(b, listedOn);
  Entity.addIdentifiers(b, identifiersVec);
  if (gender) Entity.addGender(b, gender);
  if (pep) Entity.addPep(b, pep);
  b.finish(Entity.endEntity(b));
  return b.asUint8Array().slice();
}

function decodePep(p: Pep): PepFacts {
  const positions: PepPosition[] = [];
  for (let i = 0; i < p.positionsLength(); i++) {
    const pos = p.positions(i)!;
    const iso = pos.countryIso();
    const start = pos.start();
    const end = pos.end();
    positions.push({
      office: pos.office() ?? '',
      officeQid: pos.officeQid() ?? '',
      ...(iso ? { countryIso: iso } : {}),
      role: pos.role() ?? '',
      ...(start ? { start } : {}),
      ...(end ? { end } : {}),
    });
  }
  const relQid = p.relativeQid();
  const until = p.pepUntil();
  return {
    pepClass: (p.pepClass() ?? 'PEP1') as PepClass,
    positions,
    ...(relQid ? { relativeOf: { qid: relQid, name: p.relativeName() ?? '', relationship: p.relationship() ?? '' } } : {}),
    ...(until ? { pepUntil: until } : {}),
  };
}

/** Decodes UTF-8 as it is: a leading U+FEFF is text, not a byte-order mark to drop. */
const UTF8 = new TextDecoder('utf-8', { ignoreBOM: true });

/**
 * FlatBuffers' reader decodes strings with a default TextDecoder, which drops a leading U+FEFF (a
 * list file's byte-order mark left in a field): a record must read back exactly as it was written.
 */
class ExactStringBuffer extends flatbuffers.ByteBuffer {
  override __string(offset: number, encoding?: flatbuffers.Encoding): string | Uint8Array {
    const bytes = super.__string(offset, flatbuffers.Encoding.UTF8_BYTES) as Uint8Array;
    return encoding === flatbuffers.Encoding.UTF8_BYTES ? bytes : UTF8.decode(bytes);
  }
}

export function decodeEntity(bytes: Uint8Array): CanonicalEntity {
  const e = Entity.getRootAsEntity(new ExactStringBuffer(bytes));
  const names: EntityName[] = [];
  for (let i = 0; i < e.namesLength(); i++) {
    const n = e.names(i)!;
    names.push({ full: n.full() ?? '', kind: NAME_KINDS[n.kind()] ?? 'alias', script: n.script() ?? 'Latn' });
  }
  const birthDates: string[] = [];
  for (let i = 0; i < e.birthDatesLength(); i++) birthDates.push(e.birthDates(i));
  const countries = [];
  for (let i = 0; i < e.countriesLength(); i++) {
    const c = e.countries(i)!;
    countries.push({ code: c.code() ?? '', kind: (c.kind() ?? 'other') as CountryKind });
  }
  const programs: string[] = [];
  for (let i = 0; i < e.programsLength(); i++) programs.push(e.programs(i));
  const identifiers = [];
  for (let i = 0; i < e.identifiersLength(); i++) {
    const x = e.identifiers(i)!;
    const country = x.country();
    identifiers.push({ type: x.type() ?? '', value: x.value() ?? '', ...(country ? { country } : {}) });
  }
  const listedOn = e.listedOn();
  const gender = e.gender();
  const pep = e.pep();
  return {
    id: e.id() ?? '',
    list: (e.list() ?? 'OFAC') as ListCode,
    sourceId: e.sourceId() ?? '',
    schema: (e.schema() ?? 'person') as EntitySchema,
    names,
    birthDates,
    countries,
    deceased: e.deceased(),
    programs,
    ...(listedOn ? { listedOn } : {}),
    identifiers,
    ...(gender === 'male' || gender === 'female' ? { gender } : {}),
    ...(pep ? { pep: decodePep(pep) } : {}),
  };
}
