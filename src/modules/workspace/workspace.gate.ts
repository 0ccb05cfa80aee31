import { Injectable } from '@nestjs/common';

/**
 * What runs in a workspace: a sandboxed command, the gateway's own file operations, or its removal at the session's
 * close (after the file operations and commands in flight, never beside them: a write landing in a folder `rm -rf` is
 * emptying left it on disk, and the write failed).
 */
export type WorkspaceWorkKind = 'command' | 'files' | 'removal';

interface Room {
  kind: WorkspaceWorkKind | null;
  active: number;
  waiting: Array<{ kind: WorkspaceWorkKind; enter: () => void }>;
}

/**
 * Keeps the gateway's file operations and sandboxed commands of one workspace apart in time: work of one kind runs
 * side by side, the other kind waits (first come, first served: a waiting command holds back later file operations,
 * and the reverse). A command can swap a folder for a symlink between the moment the gateway checks a path and the
 * moment it opens it; no sandboxed process outlives its command (each runs in its own PID namespace), so while the
 * gateway touches the workspace nothing in it moves. Per process: another instance sharing the workspace volume is
 * held off by the opened-descriptor checks of {@link WorkspaceFiles} instead.
 */
@Injectable()
export class WorkspaceGate {
  private readonly rooms = new Map<string, Room>();

  async run<T>(dir: string, kind: WorkspaceWorkKind, work: () => Promise<T>): Promise<T> {
    await this.enter(dir, kind);
    try {
      return await work();
    } finally {
      this.leave(dir);
    }
  }

  private enter(dir: string, kind: WorkspaceWorkKind): Promise<void> {
    let room = this.rooms.get(dir);
    if (!room) {
      room = { kind: null, active: 0, waiting: [] };
      this.rooms.set(dir, room);
    }
    if (room.waiting.length === 0 && (room.active === 0 || room.kind === kind)) {
      room.kind = kind;
      room.active++;
      return Promise.resolve();
    }
    const waiting = room.waiting;
    return new Promise((enter) => waiting.push({ kind, enter }));
  }

  private leave(dir: string): void {
    const room = this.rooms.get(dir)!;
    if (--room.active > 0) return;
    if (room.waiting.length === 0) {
      this.rooms.delete(dir);
      return;
    }
    // The next kind in line: the first waiter and every waiter of its kind right behind it.
    room.kind = room.waiting[0].kind;
    while (room.waiting.length > 0 && room.waiting[0].kind === room.kind) {
      room.active++;
      room.waiting.shift()!.enter();
    }
  }
}
