/**
 * Which commands a PowerShell script runs, read from its tree-sitter syntax tree: every command of
 * every pipeline, script block and sub-expression; `&` and `.` calls resolved to the file they name
 * (a literal, or a variable the script assigns a literal or `Join-Path … 'x.exe'`); and the code of
 * here-strings the script writes to a `.ps1` file, read as scripts of their own. Comments and data
 * strings are not code. What cannot be told statically is a problem, never silently dropped.
 */
import { positionOf, syntaxProblems, type PsNode, type PsParse } from './powershell-parser.ts';

export interface CommandTarget {
  /** Lower-case name looked up: `get-item`, `tar.exe`, `kube-proxy.exe`, `common.ps1`. */
  name: string;
  /** Lower-case full path when the call spells one out (`c:\k\kubeadm.exe`). */
  path?: string;
}

export interface CommandUse {
  /** As written in the script: `Get-Item`, `$exe`, `'C:\k\kubeadm.exe'`. */
  written: string;
  /** `&` (call) or `.` (dot-source) when invoked through an operator. */
  operator?: '&' | '.';
  target: CommandTarget;
  /** Its arguments as written, one per element: `list`, `$port`, `/get-port-state`. */
  elements: string[];
  /** `line:column`, 1-based, in the script that was read. */
  at: string;
}

export interface ScriptCommands {
  uses: CommandUse[];
  /** Functions and filters the script defines, lower-case. */
  functions: string[];
  /** Code here-strings: scripts of their own, with the `.ps1` path they are written to. */
  embedded: { writtenTo: string; at: string; commands: ScriptCommands }[];
  /** What makes the reading incomplete: syntax errors, calls whose target cannot be told. */
  problems: string[];
}

const SHELLS = new Set(['powershell', 'powershell.exe', 'pwsh', 'pwsh.exe']);
const CODE_FLAGS = /^-(c|command|e|ec|encodedcommand)$/i;

/** Reads `text`; `lineOffset` shifts positions when the text sits inside another file. */
export function readCommands(parse: PsParse, text: string, lineOffset = 0): ScriptCommands {
  const root = parse(text);
  const out: ScriptCommands = { uses: [], functions: [], embedded: [], problems: [] };
  if (root === null) return { ...out, problems: ['the parser returned no tree'] };
  out.problems.push(...syntaxProblems(root, lineOffset));
  const assigned = assignmentsOf(root);
  walk(root, (node) => {
    const at = positionOf(node, lineOffset);
    if (node.type === 'function_statement') {
      const name = node.children.find((c) => c.type === 'function_name');
      if (name !== undefined) out.functions.push(name.text.toLowerCase());
    } else if (node.type === 'type_literal' && /^\[scriptblock\]::create/i.test(parentText(node))) {
      out.problems.push(`${at}: builds code from a string ([scriptblock]::Create)`);
    } else if (node.type === 'command') {
      readCommand(node, at, assigned, out);
    }
  });
  for (const code of codeHereStrings(root, assigned)) {
    const inner = readCommands(parse, code.text, code.row + lineOffset);
    out.embedded.push({
      writtenTo: code.writtenTo,
      at: positionOf(code.node, lineOffset),
      commands: inner,
    });
  }
  return out;
}

function readCommand(
  node: PsNode,
  at: string,
  assigned: Map<string, PsNode[]>,
  out: ScriptCommands,
): void {
  const operator = node.children.find((c) => c.type === 'command_invokation_operator')?.text;
  const nameNode = node.childForFieldName('command_name');
  const written = nameNode?.text ?? node.text;
  const targets = nameNode === null ? [] : targetsOf(nameNode, assigned);
  if (targets.length === 0) {
    out.problems.push(`${at}: cannot tell which command \`${written}\` runs`);
    return;
  }
  const elements = node.childForFieldName('command_elements');
  const args = (elements?.children ?? [])
    .filter((e) => e.type !== 'command_argument_sep')
    .map((e) => e.text);
  for (const target of targets) {
    out.uses.push({
      written,
      ...(operator === '&' || operator === '.' ? { operator } : {}),
      target,
      elements: args,
      at,
    });
    const flags = elements === null ? [] : descendants(elements, ['command_parameter']);
    const code = flags.find((f) => CODE_FLAGS.test(f.text));
    if (SHELLS.has(target.name) && code !== undefined) {
      out.problems.push(`${at}: runs PowerShell code from a string (${written} ${code.text})`);
    }
  }
}

/** What a command name node calls; empty when it cannot be told. */
function targetsOf(nameNode: PsNode, assigned: Map<string, PsNode[]>): CommandTarget[] {
  const node =
    nameNode.type === 'command_name_expr' ? (nameNode.children[0] ?? nameNode) : nameNode;
  if (node.type === 'command_name') return [fromWord(node.text)];
  if (node.type === 'string_literal') return fromString(node, assigned);
  if (node.type === 'path_command_name') {
    const parts = node.children;
    if (parts.length === 1 && parts[0]!.type === 'variable') {
      return fromVariable(parts[0]!.text, assigned);
    }
    const last = parts[parts.length - 1];
    if (last?.type !== 'path_command_name_token') return [];
    const word = fromWord(last.text);
    return [parts.length === 1 ? word : { name: word.name }];
  }
  return [];
}

function fromWord(word: string): CommandTarget {
  const name = (word.split(/[\\/]/).pop() ?? word).toLowerCase();
  return /[\\/]/.test(word) ? { name, path: normalizePath(word) } : { name };
}

/** A string literal as a command: its file name, and its path when every part is literal. */
function fromString(node: PsNode, assigned: Map<string, PsNode[]>): CommandTarget[] {
  const value = literalValue(node, assigned);
  if (value === undefined) return [];
  const name = (value.text.split(/[\\/]/).pop() ?? '').toLowerCase();
  if (name === '' || name.includes('$')) return [];
  const path = value.complete && /[\\/]/.test(value.text) ? normalizePath(value.text) : undefined;
  return [path === undefined ? { name } : { name, path }];
}

/** Every value the script assigns to the variable, each as a command; empty if any is unknown. */
function fromVariable(variable: string, assigned: Map<string, PsNode[]>): CommandTarget[] {
  const values = assigned.get(variableName(variable)) ?? [];
  const targets: CommandTarget[] = [];
  for (const value of values) {
    const found = valueTargets(value, assigned);
    if (found.length === 0) return [];
    targets.push(...found);
  }
  return targets;
}

function valueTargets(value: PsNode, assigned: Map<string, PsNode[]>): CommandTarget[] {
  const lone = loneString(value);
  if (lone !== undefined) return fromString(lone, assigned);
  const command = descendants(value, ['command'])[0];
  const name = command?.childForFieldName('command_name')?.text.toLowerCase();
  if (command !== undefined && name === 'join-path' && value.text.trim() === command.text.trim()) {
    const child = descendants(command, ['string_literal']).pop();
    // The joined path depends on the parent folder's value: keep the file name only.
    return child === undefined ? [] : fromString(child, assigned).map((t) => ({ name: t.name }));
  }
  return [];
}

/**
 * The text of a string literal; `complete` is false when a part of it is only known at run time
 * (a sub-expression, or a variable the script does not assign exactly one literal).
 */
function literalValue(
  node: PsNode,
  assigned: Map<string, PsNode[]>,
): { text: string; complete: boolean } | undefined {
  const raw = node.text;
  if (raw.startsWith("'")) return { text: raw.slice(1, -1).replace(/''/g, "'"), complete: true };
  if (!raw.startsWith('"')) return undefined;
  let text = raw;
  let complete = true;
  const parts = node.children
    .flatMap((c) => c.children)
    .filter((p) => p.type === 'variable' || p.type === 'sub_expression')
    .sort((a, b) => b.startIndex - a.startIndex);
  for (const part of parts.filter((p) => !escaped(raw, p.startIndex - node.startIndex))) {
    const values = part.type === 'variable' ? (assigned.get(variableName(part.text)) ?? []) : [];
    const only = values.length === 1 ? loneString(values[0]!) : undefined;
    const known = only?.text.startsWith("'") === true ? only.text.slice(1, -1) : undefined;
    if (known === undefined) complete = false;
    const start = part.startIndex - node.startIndex;
    text = text.slice(0, start) + (known ?? '$') + text.slice(start + part.text.length);
  }
  return { text: text.slice(1, -1).replace(/`(.)/g, '$1'), complete };
}

/** The string literal a value consists of, if it is nothing else. */
function loneString(value: PsNode): PsNode | undefined {
  const first = descendants(value, ['string_literal'])[0];
  return first !== undefined && first.text.trim() === value.text.trim() ? first : undefined;
}

/** `$x = …` assignments (plain `=` to a plain variable), by lower-case variable name. */
function assignmentsOf(root: PsNode): Map<string, PsNode[]> {
  const map = new Map<string, PsNode[]>();
  for (const node of descendants(root, ['assignment_expression'])) {
    const left = node.children.find((c) => c.type === 'left_assignment_expression');
    const op = node.children.find((c) => c.type === 'assignement_operator');
    const value = node.childForFieldName('value');
    if (left === undefined || op?.text !== '=' || value === null) continue;
    if (!/^\$[\w:]+$/.test(left.text.trim())) continue;
    const name = variableName(left.text.trim());
    map.set(name, [...(map.get(name) ?? []), value]);
  }
  return map;
}

interface CodeHereString {
  node: PsNode;
  writtenTo: string;
  /** Row of the first content line, 0-based. */
  row: number;
  text: string;
}

/** Here-strings assigned to a variable that a statement writes to a `.ps1` file: code, not data. */
function codeHereStrings(root: PsNode, assigned: Map<string, PsNode[]>): CodeHereString[] {
  const found: CodeHereString[] = [];
  for (const [name, values] of assigned) {
    for (const value of values) {
      const literal = loneString(value);
      const here = literal?.children[0];
      if (here === undefined || !/here_string/.test(here.type)) continue;
      const writtenTo = ps1TargetOf(root, name, value);
      if (writtenTo === undefined) continue;
      found.push({
        node: here,
        writtenTo,
        row: here.startPosition.row + 1,
        text: hereStringCode(here),
      });
    }
  }
  return found;
}

/** The `.ps1` path of a statement that uses `$name` (other than the assignment `value`). */
function ps1TargetOf(root: PsNode, name: string, value: PsNode): string | undefined {
  for (const pipeline of descendants(root, ['pipeline'])) {
    if (pipeline.startIndex <= value.startIndex && pipeline.endIndex >= value.endIndex) continue;
    const uses = descendants(pipeline, ['variable']).some((v) => variableName(v.text) === name);
    if (!uses) continue;
    const path = descendants(pipeline, ['string_literal', 'generic_token'])
      .map((n) => n.text.replace(/^["']|["']$/g, ''))
      .find((t) => /\.ps1$/i.test(t));
    if (path !== undefined) return path;
  }
  return undefined;
}

/** The code a here-string holds once expanded: run-time parts become a placeholder word. */
function hereStringCode(here: PsNode): string {
  let text = here.text;
  if (here.type === 'expandable_here_string_literal') {
    const parts = here.children.filter(
      (c) =>
        (c.type === 'variable' || c.type === 'sub_expression') &&
        !escaped(here.text, c.startIndex - here.startIndex),
    );
    for (const part of [...parts].reverse()) {
      const start = part.startIndex - here.startIndex;
      text = text.slice(0, start) + 'hl' + text.slice(start + part.text.length);
    }
  }
  const body = text.replace(/^@["']\r?\n/, '').replace(/\r?\n["']@$/, '');
  return here.type === 'expandable_here_string_literal'
    ? body.replace(/`([\s\S])/g, (_, c: string) => ({ n: '\n', t: '\t', r: '\r' })[c] ?? c)
    : body;
}

/** Whether the character at `index` follows an odd run of backticks (the grammar misses some). */
function escaped(text: string, index: number): boolean {
  let ticks = 0;
  while (index - ticks - 1 >= 0 && text[index - ticks - 1] === '`') ticks++;
  return ticks % 2 === 1;
}

function variableName(text: string): string {
  return text.replace(/^\$\{?|\}$/g, '').toLowerCase();
}

function normalizePath(path: string): string {
  return path.replace(/\//g, '\\').toLowerCase();
}

function parentText(node: PsNode): string {
  return node.parent?.text ?? node.text;
}

function walk(node: PsNode, visit: (node: PsNode) => void): void {
  visit(node);
  for (const child of node.children) walk(child, visit);
}

function descendants(node: PsNode, types: string[]): PsNode[] {
  const found: PsNode[] = [];
  walk(node, (n) => {
    if (types.includes(n.type)) found.push(n);
  });
  return found;
}
