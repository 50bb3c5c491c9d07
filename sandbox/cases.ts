import { randomBytes, randomUUID } from 'node:crypto';
import type { CoreBehaviour } from './flavors/behaviour.ts';

/** Queues and rejection codes "created in the management portal" of the sandbox (2.5 validates against them). */
export const knownQueues: readonly string[] = ['default', 'manual-review', 'fraud-ops'];
export const knownRejectionCodes: readonly string[] = ['R01', 'R02', 'R03'];
/** Portal users; only the update-agent-validated fault checks externalAgent against them. */
export const knownAgents: readonly string[] = ['agent-001', 'agent-002'];

export interface DocumentSession {
  interviewId: string;
  token: string;
  ocr: Record<string, unknown>;
  score: Record<string, unknown>;
  image: Record<string, unknown>;
  form: Record<string, unknown>;
}

export interface StoredCase {
  authenticationId: string;
  inquiryId: string;
  strategyName: string;
  decision: string;
  tags: string[];
  /** Under the fault update-string-tags-kept: a string sent as tags, kept and answered as it was sent. */
  tagsAsSent?: string;
  queue: string;
  rejectionCode?: string;
  verifiedFraud?: boolean;
  notes?: string;
  externalAgent?: string;
  updateStrategy?: string;
  customFields: Record<string, unknown>;
  documents: unknown[];
  sharedContext?: Record<string, unknown>;
  deviceSessionId?: string;
  entryUser?: string;
  hasApplicant: boolean;
  hasCoApplicant: boolean;
  createdAt: string;
  documentSession?: DocumentSession;
  /** The client whose token created the case. */
  ownerClientId?: string;
}

export interface NewCase {
  inquiryId: string;
  strategyName: string;
  deviceSessionId?: string;
  entryUser?: string;
  hasApplicant?: boolean;
  hasCoApplicant?: boolean;
  sharedContext?: Record<string, unknown>;
  customFields?: Record<string, unknown>;
  ownerClientId?: string;
}

/**
 * Cases kept in memory at most: past it the oldest case is forgotten (a sandbox running for days under load stays
 * bounded; a case that old answers as unknown).
 */
export const MAX_CASES = 50_000;

/** The cases of one sandbox, in memory, in creation order. */
export class CaseStore {
  private readonly byId = new Map<string, StoredCase>();
  /** The latest case of each inquiry, so that an update finds it without a scan. */
  private readonly latestByInquiry = new Map<string, StoredCase>();
  private caseCounter = 0;
  private interviewCounter = 0;
  private latest: StoredCase | undefined;
  private latestWithSession: StoredCase | undefined;

  constructor(private readonly behaviour: Pick<CoreBehaviour, 'ids' | 'initialDecision' | 'serviceIdCase'>) {}

  /** The key a case is kept under: its id, or its id in lower case where service ids compare case-insensitively. */
  private key(authenticationId: string): string {
    return this.behaviour.serviceIdCase === 'insensitive' ? authenticationId.toLowerCase() : authenticationId;
  }

  create(input: NewCase): StoredCase {
    this.caseCounter += 1;
    const authenticationId =
      this.behaviour.ids === 'uuid' ? randomUUID() : `CASE-${String(this.caseCounter).padStart(6, '0')}`;
    const stored: StoredCase = {
      authenticationId,
      inquiryId: input.inquiryId,
      strategyName: input.strategyName,
      decision: this.behaviour.initialDecision,
      tags: [],
      queue: knownQueues[0] ?? 'default',
      customFields: { ...(input.customFields ?? {}) },
      documents: [],
      hasApplicant: input.hasApplicant ?? false,
      hasCoApplicant: input.hasCoApplicant ?? false,
      createdAt: new Date().toISOString(),
      ...(input.deviceSessionId !== undefined ? { deviceSessionId: input.deviceSessionId } : {}),
      ...(input.entryUser !== undefined ? { entryUser: input.entryUser } : {}),
      ...(input.sharedContext !== undefined ? { sharedContext: input.sharedContext } : {}),
      ...(input.ownerClientId !== undefined ? { ownerClientId: input.ownerClientId } : {}),
    };
    this.byId.set(this.key(authenticationId), stored);
    this.latestByInquiry.set(stored.inquiryId, stored);
    this.latest = stored;
    if (this.byId.size > MAX_CASES) this.forgetOldest();
    return stored;
  }

  get(authenticationId: string): StoredCase | undefined {
    return this.byId.get(this.key(authenticationId));
  }

  /**
   * Faults' lookups of a near miss (sandbox/faults.ts): the latest case whose id the given one is a prefix of (a
   * `LIKE 'id%'` query), or whose id the given one starts with (a column of fixed width truncating it).
   */
  nearMiss(given: string, how: 'prefix-of-case' | 'case-is-prefix'): StoredCase | undefined {
    if (given === '') return undefined;
    let found: StoredCase | undefined;
    for (const c of this.byId.values()) {
      const id = c.authenticationId;
      if (how === 'prefix-of-case' ? id.startsWith(given) : given.startsWith(id)) found = c;
    }
    return found;
  }

  latestCase(): StoredCase | undefined {
    return this.latest;
  }

  /** The case whose document session started last. */
  latestDocumentCase(): StoredCase | undefined {
    return this.latestWithSession;
  }

  hasDeviceSession(deviceSessionId: string): boolean {
    for (const c of this.byId.values()) if (c.deviceSessionId === deviceSessionId) return true;
    return false;
  }

  /** The most recent case opened for an inquiry. */
  byInquiry(inquiryId: string): StoredCase | undefined {
    return this.latestByInquiry.get(inquiryId);
  }

  get size(): number {
    return this.byId.size;
  }

  private forgetOldest(): void {
    const [oldestId, oldest] = this.byId.entries().next().value as [string, StoredCase];
    this.byId.delete(oldestId);
    if (this.latestByInquiry.get(oldest.inquiryId) === oldest) this.latestByInquiry.delete(oldest.inquiryId);
  }

  startDocumentSession(c: StoredCase): DocumentSession {
    this.interviewCounter += 1;
    const interviewId = this.behaviour.ids === 'uuid' ? randomUUID() : String(700_000_000 + this.interviewCounter);
    const session: DocumentSession = {
      interviewId,
      token: randomBytes(24).toString('base64url'),
      ...documentResults(c.authenticationId, interviewId),
    };
    c.documentSession = session;
    this.latestWithSession = c;
    return session;
  }

  /** The document session of a case; a case without one gets the sandbox's canned results. */
  documentSessionOf(c: StoredCase): DocumentSession {
    return c.documentSession ?? this.startDocumentSession(c);
  }
}

function documentResults(
  authenticationId: string,
  interviewId: string,
): Pick<DocumentSession, 'ocr' | 'score' | 'image' | 'form'> {
  const expires = new Date(Date.now() + 15 * 60_000).toISOString();
  return {
    ocr: {
      documentType: 'DRIVERS_LICENSE',
      issuingCountry: 'US',
      firstName: 'JANE',
      lastName: 'SAMPLE',
      documentNumber: 'D1234567',
      dateOfBirth: '1990-01-01',
    },
    score: { authenticity: 0.97, faceMatch: 0.94, result: 'PASS' },
    image: {
      front: `https://sandbox.invalid/docv/${interviewId}/front.jpg?expires=${encodeURIComponent(expires)}`,
      back: `https://sandbox.invalid/docv/${interviewId}/back.jpg?expires=${encodeURIComponent(expires)}`,
      selfie: `https://sandbox.invalid/docv/${interviewId}/selfie.jpg?expires=${encodeURIComponent(expires)}`,
    },
    form: { caseReference: authenticationId, consent: true },
  };
}
