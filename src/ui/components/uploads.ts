// Files and folders dropped on the page, read through the File and Directory Entries API
// (folders keep their relative paths).

export interface UploadedFile {
  path: string;
  data: Uint8Array;
}

function readEntries(reader: FileSystemDirectoryReader): Promise<FileSystemEntry[]> {
  return new Promise((resolve, reject) => reader.readEntries(resolve, reject));
}

async function collect(entry: FileSystemEntry, prefix: string, out: UploadedFile[]): Promise<void> {
  if (entry.isFile) {
    const file = await new Promise<File>((resolve, reject) => (entry as FileSystemFileEntry).file(resolve, reject));
    out.push({ path: prefix + entry.name, data: new Uint8Array(await file.arrayBuffer()) });
  } else if (entry.isDirectory) {
    const reader = (entry as FileSystemDirectoryEntry).createReader();
    // readEntries returns the listing in batches until an empty one.
    for (let batch = await readEntries(reader); batch.length > 0; batch = await readEntries(reader)) {
      for (const child of batch) await collect(child, `${prefix}${entry.name}/`, out);
    }
  }
}

export async function readDropped(transfer: DataTransfer): Promise<UploadedFile[]> {
  const out: UploadedFile[] = [];
  const entries = [...transfer.items].map((item) => item.webkitGetAsEntry()).filter((e): e is FileSystemEntry => e !== null);
  if (entries.length > 0) {
    for (const entry of entries) await collect(entry, '', out);
    return out;
  }
  for (const file of [...transfer.files]) out.push({ path: file.name, data: new Uint8Array(await file.arrayBuffer()) });
  return out;
}
