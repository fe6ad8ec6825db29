/** The certificates of PEM text, each as base64 DER, in their order. */
export const certificatesOfPem = (pem: string): string[] =>
  (pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? []).map((block) =>
    block.replace(/-----(BEGIN|END) CERTIFICATE-----|\s+/g, ''),
  );
