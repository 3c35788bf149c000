import request from 'supertest';
import type { TestApp } from './test-app.js';

/** Demo accounts loaded into every test database (see src/database/demo-seeder.ts). */
export const ADMIN = { email: 'admin@example.com', password: 'admin-password' };
export const ALICE = { email: 'alice@example.com', password: 'alice-password' };
export const BOB = { email: 'bob@example.com', password: 'bob-password' };

export async function tokenFor(app: TestApp, credentials: { email: string; password: string }): Promise<string> {
  const response = await request(app.server).post('/tokens').send(credentials).expect(201);
  return response.body.accessToken as string;
}

export const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
