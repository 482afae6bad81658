import { randomUUID } from 'node:crypto';
import { DeleteObjectsCommand, GetObjectCommand, NoSuchKey, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import type { Config } from '../../core/config.js';
import { NotFound, ServiceUnavailable } from '../../core/errors.js';
import type { BlobStore } from './files.js';

/** Bytes in an S3-compatible object store, one object per content row. */
export class S3BlobStore implements BlobStore {
  readonly kind = 's3' as const;
  private readonly client: S3Client;

  constructor(private readonly config: Pick<Config, 'S3_BUCKET' | 'S3_REGION' | 'S3_ENDPOINT' | 'S3_FORCE_PATH_STYLE' | 'S3_PREFIX' | 'S3_ACCESS_KEY_ID' | 'S3_SECRET_ACCESS_KEY'>) {
    this.client = new S3Client({
      region: config.S3_REGION,
      ...(config.S3_ENDPOINT ? { endpoint: config.S3_ENDPOINT } : {}),
      forcePathStyle: config.S3_FORCE_PATH_STYLE,
      ...(config.S3_ACCESS_KEY_ID && config.S3_SECRET_ACCESS_KEY
        ? { credentials: { accessKeyId: config.S3_ACCESS_KEY_ID, secretAccessKey: config.S3_SECRET_ACCESS_KEY } }
        : {}),
      // Plain PUTs with a Content-MD5-free body: S3-compatible stores differ in their support of
      // the newer flexible checksums, and the SHA-256 of every content is kept in its row anyway.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      maxAttempts: 3,
    });
  }

  private get bucket(): string {
    return this.config.S3_BUCKET!;
  }

  async save(tenantId: number, sha256: string, bytes: Buffer) {
    // A fresh key per content row: a content deleted and uploaded again never shares an object.
    const storageKey = `${this.config.S3_PREFIX}${tenantId}/${sha256}-${randomUUID()}`;
    await this.call(() => this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key: storageKey, Body: bytes, ContentLength: bytes.length })));
    return { bytes: null, storageKey };
  }

  async load(storageKey: string): Promise<Buffer> {
    const response = await this.call(() => this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: storageKey })));
    if (!response.Body) throw new ServiceUnavailable('The file store answered without the file.');
    return Buffer.from(await response.Body.transformToByteArray());
  }

  async remove(storageKeys: string[]): Promise<void> {
    for (let start = 0; start < storageKeys.length; start += 1000) {
      const Objects = storageKeys.slice(start, start + 1000).map((Key) => ({ Key }));
      await this.call(() => this.client.send(new DeleteObjectsCommand({ Bucket: this.bucket, Delete: { Objects, Quiet: true } })));
    }
  }

  private async call<T>(send: () => Promise<T>): Promise<T> {
    try {
      return await send();
    } catch (error) {
      if (error instanceof NoSuchKey) throw new NotFound('The file content');
      throw Object.assign(new ServiceUnavailable('The file store is temporarily unavailable.'), { cause: error });
    }
  }
}
