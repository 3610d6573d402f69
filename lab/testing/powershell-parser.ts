/**
 * PowerShell parsed without PowerShell: the tree-sitter PowerShell grammar (npm
 * `tree-sitter-powershell`, its .wasm) run by `web-tree-sitter`. Both are devDependencies; without
 * them the loader says why it cannot parse. The syntax check and the command check share it.
 */
import { createRequire } from 'node:module';

/** The part of a tree-sitter node the checks read. */
export interface PsNode {
  type: string;
  text: string;
  startIndex: number;
  endIndex: number;
  isError: boolean;
  isMissing: boolean;
  startPosition: { row: number; column: number };
  children: PsNode[];
  parent: PsNode | null;
  childForFieldName(field: string): PsNode | null;
}

/** Parses one script; the root's `hasError` says whether any part did not parse. */
export type PsParse = (text: string) => (PsNode & { hasError: boolean }) | null;

interface TsParser {
  setLanguage(language: unknown): void;
  parse(text: string): { rootNode: PsNode & { hasError: boolean } } | null;
}
interface TreeSitterModule {
  Parser: { init(): Promise<void>; new (): TsParser };
  Language: { load(path: string): Promise<unknown> };
}

let loading: Promise<PsParse | { unavailable: string }> | undefined;

/** The parser (loaded once per process), or the reason it is unavailable. */
export function powerShellParser(): Promise<PsParse | { unavailable: string }> {
  loading ??= load();
  return loading;
}

async function load(): Promise<PsParse | { unavailable: string }> {
  const moduleName = 'web-tree-sitter';
  let ts: TreeSitterModule;
  let wasm: string;
  try {
    ts = (await import(moduleName)) as TreeSitterModule;
    wasm = createRequire(import.meta.url).resolve(
      'tree-sitter-powershell/tree-sitter-powershell.wasm',
    );
  } catch {
    return {
      unavailable: 'npm packages web-tree-sitter and tree-sitter-powershell are not installed',
    };
  }
  await ts.Parser.init();
  const parser = new ts.Parser();
  parser.setLanguage(await ts.Language.load(wasm));
  return (text) => parser.parse(text)?.rootNode ?? null;
}

/** `row:column` (1-based) of a node, for messages. */
export function positionOf(node: PsNode, lineOffset = 0): string {
  return `${node.startPosition.row + 1 + lineOffset}:${node.startPosition.column + 1}`;
}

/** Every syntax error or missing token in a parsed tree, as `row:column: what`. */
export function syntaxProblems(root: PsNode, lineOffset = 0): string[] {
  const problems: string[] = [];
  const walk = (node: PsNode) => {
    if (node.isError || node.isMissing) {
      const what = node.isMissing ? `missing ${node.type}` : 'syntax error';
      problems.push(`${positionOf(node, lineOffset)}: ${what}`);
    }
    node.children.forEach(walk);
  };
  walk(root);
  return problems;
}
