import hljs from 'highlight.js/lib/core';
import bash from 'highlight.js/lib/languages/bash';
import graphql from 'highlight.js/lib/languages/graphql';
import javascript from 'highlight.js/lib/languages/javascript';
import json from 'highlight.js/lib/languages/json';
import python from 'highlight.js/lib/languages/python';
import sql from 'highlight.js/lib/languages/sql';
import typescript from 'highlight.js/lib/languages/typescript';
import yaml from 'highlight.js/lib/languages/yaml';
import MarkdownIt from 'markdown-it';

// Only the languages answers use most, to keep the bundle small; their aliases (ts, js, sh, py, yml…) come with them.
for (const [name, language] of Object.entries({ bash, graphql, javascript, json, python, sql, typescript, yaml })) hljs.registerLanguage(name, language);

// Fences name their language; other code stays plain (markdown-it escapes it). hljs escapes what it highlights.
const highlight = (code: string, lang: string): string =>
  lang && hljs.getLanguage(lang) ? hljs.highlight(code, { language: lang, ignoreIllegals: true }).value : '';

// Raw HTML in model output is shown as text, never injected; markdown-it also refuses
// javascript:, vbscript: and file: links.
const md = new MarkdownIt({ html: false, linkify: true, breaks: false, highlight });

const defaultLinkOpen = md.renderer.rules.link_open ?? ((tokens, idx, options, _env, self) => self.renderToken(tokens, idx, options));
md.renderer.rules.link_open = (tokens, idx, options, env, self) => {
  tokens[idx]!.attrSet('target', '_blank');
  tokens[idx]!.attrSet('rel', 'noopener noreferrer');
  return defaultLinkOpen(tokens, idx, options, env, self);
};

// Each code block gets a copy button; the conversation handles its clicks.
const defaultFence = md.renderer.rules.fence!;
md.renderer.rules.fence = (tokens, idx, options, env, self) =>
  `<div class="code-block"><button type="button" class="copy-code" data-copy-code>Copy</button>${defaultFence(tokens, idx, options, env, self)}</div>`;

export const renderMarkdown = (text: string): string => md.render(text);
