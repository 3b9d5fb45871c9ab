import protobuf from 'protobufjs';
import descriptorTypes from 'protobufjs/ext/descriptor/index.js';

/**
 * An index over a FileDescriptorSet (proto/descriptor-set.binpb, built by buf from proto/): every file's bytes exactly as
 * the toolchain wrote them, by file name and by each symbol it defines. Reflection answers with these bytes as they are,
 * so what a client reads is what protoc/buf produced — original file names, dependencies, fully-qualified type names,
 * options (google.api.http, validate rules), proto3 `optional` and comments — never a re-encoding (protobufjs's
 * descriptor types drop the fields and extensions they do not know, such as proto3_optional and custom options).
 */
export interface DescriptorSetIndex {
  /** File names in the set's order (dependencies come before the files that import them). */
  readonly fileNames: readonly string[];
  /** The serialized FileDescriptorProto of `name`, or undefined. */
  file(name: string): Uint8Array | undefined;
  /** The names of the files `name` imports, in declaration order. */
  dependencies(name: string): readonly string[];
  /** The file that defines a fully-qualified symbol (no leading dot): package-level or nested message, enum, enum value, field, oneof, service, method, extension. */
  fileContainingSymbol(symbol: string): string | undefined;
  /** The file that defines extension `number` of message `extendee` (fully qualified, no leading dot). */
  fileContainingExtension(extendee: string, number: number): string | undefined;
  /** The extension numbers defined for `extendee`, ascending; undefined when the set defines no such message. */
  extensionNumbers(extendee: string): number[] | undefined;
  /** Whether `name` is a service the set defines. */
  hasService(name: string): boolean;
}

interface DecodedFile {
  name: string;
  package?: string;
  dependency?: string[];
  messageType?: DecodedMessage[];
  enumType?: DecodedEnum[];
  service?: { name: string; method?: { name: string }[] }[];
  extension?: DecodedField[];
}

interface DecodedMessage {
  name: string;
  field?: DecodedField[];
  nestedType?: DecodedMessage[];
  enumType?: DecodedEnum[];
  extension?: DecodedField[];
  oneofDecl?: { name: string }[];
}

interface DecodedEnum {
  name: string;
  value?: { name: string }[];
}

interface DecodedField {
  name: string;
  number: number;
  extendee?: string;
}

const FileDescriptorProto = descriptorTypes.FileDescriptorProto as unknown as protobuf.Type;

/** Splits a serialized FileDescriptorSet (`repeated FileDescriptorProto file = 1`) into each file's own bytes. */
function splitFiles(set: Uint8Array): Uint8Array[] {
  const reader = protobuf.Reader.create(set);
  const files: Uint8Array[] = [];
  while (reader.pos < reader.len) {
    const tag = reader.uint32();
    if (tag === ((1 << 3) | 2)) {
      const length = reader.uint32();
      if (reader.pos + length > reader.len) throw new Error('descriptor set: a file runs past the end of the set');
      files.push(set.subarray(reader.pos, reader.pos + length));
      reader.skip(length);
    } else {
      reader.skipType(tag & 7);
    }
  }
  return files;
}

const joinName = (scope: string, name: string) => (scope ? `${scope}.${name}` : name);
const stripDot = (name: string) => (name.startsWith('.') ? name.slice(1) : name);

/** Builds the index; throws on a set that is not well formed (two files of one name, one symbol defined twice, a missing import). */
export function indexDescriptorSet(set: Uint8Array): DescriptorSetIndex {
  const bytesByFile = new Map<string, Uint8Array>();
  const dependenciesByFile = new Map<string, string[]>();
  const fileBySymbol = new Map<string, string>();
  const services = new Set<string>();
  /** extendee → extension number → file. */
  const extensions = new Map<string, Map<number, string>>();
  const messages = new Set<string>();

  const define = (symbol: string, file: string) => {
    if (fileBySymbol.has(symbol)) throw new Error(`descriptor set: ${symbol} is defined twice`);
    fileBySymbol.set(symbol, file);
  };
  const defineExtensions = (fields: DecodedField[] | undefined, scope: string, file: string) => {
    for (const field of fields ?? []) {
      define(joinName(scope, field.name), file);
      const extendee = stripDot(field.extendee ?? '');
      const numbers = extensions.get(extendee) ?? new Map<number, string>();
      numbers.set(field.number, file);
      extensions.set(extendee, numbers);
    }
  };
  // Enum values are siblings of their enum in protobuf's scoping (api.serverNameExample.v1.MALE).
  const defineEnum = (enumType: DecodedEnum, scope: string, file: string) => {
    define(joinName(scope, enumType.name), file);
    for (const value of enumType.value ?? []) define(joinName(scope, value.name), file);
  };
  const defineMessage = (message: DecodedMessage, scope: string, file: string) => {
    const name = joinName(scope, message.name);
    define(name, file);
    messages.add(name);
    for (const field of message.field ?? []) define(joinName(name, field.name), file);
    for (const oneof of message.oneofDecl ?? []) define(joinName(name, oneof.name), file);
    for (const nested of message.nestedType ?? []) defineMessage(nested, name, file);
    for (const nested of message.enumType ?? []) defineEnum(nested, name, file);
    defineExtensions(message.extension, name, file);
  };

  for (const bytes of splitFiles(set)) {
    const file = FileDescriptorProto.decode(bytes) as unknown as DecodedFile;
    const name = file.name;
    if (!name || bytesByFile.has(name)) throw new Error(`descriptor set: file ${JSON.stringify(name)} is missing a name or listed twice`);
    bytesByFile.set(name, bytes);
    dependenciesByFile.set(name, file.dependency ?? []);
    const scope = file.package ?? '';
    for (const message of file.messageType ?? []) defineMessage(message, scope, name);
    for (const enumType of file.enumType ?? []) defineEnum(enumType, scope, name);
    for (const service of file.service ?? []) {
      const serviceName = joinName(scope, service.name);
      define(serviceName, name);
      services.add(serviceName);
      for (const method of service.method ?? []) define(joinName(serviceName, method.name), name);
    }
    defineExtensions(file.extension, scope, name);
  }
  for (const [name, dependencies] of dependenciesByFile) {
    const missing = dependencies.find((dependency) => !bytesByFile.has(dependency));
    if (missing !== undefined)
      throw new Error(`descriptor set: ${name} imports ${missing}, which the set does not hold (build it with its imports)`);
  }

  return {
    fileNames: [...bytesByFile.keys()],
    file: (name) => bytesByFile.get(name),
    dependencies: (name) => dependenciesByFile.get(name) ?? [],
    fileContainingSymbol: (symbol) => fileBySymbol.get(symbol),
    fileContainingExtension: (extendee, number) => extensions.get(extendee)?.get(number),
    extensionNumbers: (extendee) =>
      messages.has(extendee) ? [...(extensions.get(extendee)?.keys() ?? [])].sort((a, b) => a - b) : undefined,
    hasService: (name) => services.has(name),
  };
}
