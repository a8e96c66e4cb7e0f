/** A test certificate authority and a server certificate it signed, made with openssl. */

/**
 * Writes a CA (`ca.pem`) and a certificate for `name` signed by it
 * (`NAME.pem`, `NAME.key`) into `dir`; false where openssl is missing. hob
 * trusts the CA when started with `DENO_CERT=DIR/ca.pem`.
 *
 * @example
 * ```ts
 * if (await makeCertificates(dir, "localhost")) Deno.serve({ cert: await Deno.readTextFile(`${dir}/localhost.pem`), … });
 * ```
 */
export async function makeCertificates(dir: string, name: string): Promise<boolean> {
  const openssl = async (...args: string[]) => {
    const output = await new Deno.Command("openssl", { args, cwd: dir, stderr: "piped" }).output()
      .catch(() => null);
    return output?.success ?? false;
  };
  await Deno.writeTextFile(
    `${dir}/leaf.ext`,
    `subjectAltName=DNS:${name}\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n`,
  );
  const days = ["-days", "2"];
  return await openssl(
    ...["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.pem"],
    ...days,
    ...["-subj", "/CN=hob test CA", "-addext", "basicConstraints=critical,CA:TRUE"],
    ...["-addext", "keyUsage=critical,keyCertSign"],
  ) &&
    await openssl(
      ...["req", "-newkey", "rsa:2048", "-nodes", "-keyout", `${name}.key`],
      ...["-out", `${name}.csr`, "-subj", `/CN=${name}`],
    ) &&
    await openssl(
      ...["x509", "-req", "-in", `${name}.csr`, "-CA", "ca.pem", "-CAkey", "ca.key"],
      ...["-CAcreateserial", "-out", `${name}.pem`, ...days, "-extfile", "leaf.ext"],
    );
}
