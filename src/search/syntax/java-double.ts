/**
 * A double as Java's Double.toString writes it, which Elasticsearch uses in the keys it builds from
 * numbers (a range bucket's "100.0-200.0", "1.0E7-*"): a decimal point always, and the computerized
 * scientific form (`1.0E7`, `1.5E-4`) outside [10^-3, 10^7).
 */
export function javaDouble(d: number): string {
  if (Number.isNaN(d)) return 'NaN';
  if (!Number.isFinite(d)) return d > 0 ? 'Infinity' : '-Infinity';
  if (d === 0) return Object.is(d, -0) ? '-0.0' : '0.0';
  const abs = Math.abs(d);
  if (abs >= 1e-3 && abs < 1e7) {
    const s = String(d);
    return s.includes('.') ? s : `${s}.0`;
  }
  const [mantissa = '', exponent = '0'] = d.toExponential().split('e');
  return `${mantissa.includes('.') ? mantissa : `${mantissa}.0`}E${Number(exponent)}`;
}
