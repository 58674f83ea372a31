import { describe, expect, it } from 'vitest';
import { LabelSelectorError, matchesLabels, parseLabelSelector } from '../../../../../src/providers/kubernetes/translate/shared/label-selector.js';

describe('label selectors', () => {
  const labels = { app: 'web', tier: 'front', 'example.com/team': 'a' };
  it.each([
    ['', true],
    ['app=web', true],
    ['app==web,tier=front', true],
    ['app!=web', false],
    ['tier in (front, back)', true],
    ['tier notin (front)', false],
    ['example.com/team', true],
    ['!legacy', true],
    ['!app', false],
    ['app=web,tier in (back)', false],
  ])('%j matches: %s', (selector, expected) => {
    expect(matchesLabels(parseLabelSelector(selector), labels)).toBe(expected);
  });

  it('refuses malformed selectors with the bad part named', () => {
    expect(() => parseLabelSelector('app=we b')).toThrow(LabelSelectorError);
    expect(() => parseLabelSelector('-bad=x')).toThrow(/"-bad"/);
  });
});
